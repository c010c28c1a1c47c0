package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func (a *app) migrateReportCommand() *cobra.Command {
	var prefix string
	cmd := &cobra.Command{
		Use:   "migrate-report",
		Short: "what the switch to the KIP-848 consumer protocol does, group by group",
		Long: `For every group the server has a recorded input of (MigrationReport): the
broker's server-side assignor its protocol maps to (range -> kip848-range@1;
roundrobin, sticky, cooperative-sticky -> kip848-uniform@1), the partitions
that move at the switch (the broker imports today's assignment as the
previous one), balance and the worst per-topic skew after against today, the
partitions that lose rack locality, whether the group's assignor carries user
data, and a verdict (ready, caution, blocked) with its reason. Sorted:
blocked, then caution, then ready. -o json prints the MigrationReportResponse
pages merged into one.`,
		Args: cobra.NoArgs,
		RunE: a.runConn(func(ctx context.Context, c *conn, _ []string) error {
			all := &assigndv1.MigrationReportResponse{}
			req := &assigndv1.MigrationReportRequest{GroupIdPrefix: prefix, PageSize: 100}
			for {
				resp, err := c.replay.MigrationReport(ctx, req)
				if err != nil {
					return err
				}
				all.Groups = append(all.Groups, resp.GetGroups()...)
				all.TotalGroups = resp.GetTotalGroups()
				if req.PageToken = resp.GetNextPageToken(); req.PageToken == "" {
					break
				}
			}
			sortMigration(all.Groups)
			if a.json() {
				return printProtoJSON(a.out, all, false)
			}
			return printMigration(a, all)
		}),
	}
	cmd.Flags().StringVar(&prefix, "prefix", "", "only groups whose id starts with `P`")
	return cmd
}

// sortMigration lists blocked groups first, then caution, then ready
// ([assigndv1.MigrationVerdict.Urgency]); pages come in id order, kept
// within a verdict.
func sortMigration(gs []*assigndv1.GroupMigration) {
	slices.SortStableFunc(gs, func(a, b *assigndv1.GroupMigration) int {
		return a.GetVerdict().Urgency() - b.GetVerdict().Urgency()
	})
}

func verdictName(v assigndv1.MigrationVerdict) string {
	return strings.ToLower(strings.TrimPrefix(v.String(), "MIGRATION_VERDICT_"))
}

func printMigration(a *app, r *assigndv1.MigrationReportResponse) error {
	w := a.out
	n := map[assigndv1.MigrationVerdict]int{}
	moved, parts, lost := 0, 0, 0
	for _, g := range r.GetGroups() {
		n[g.GetVerdict()]++
		moved += int(g.GetMovedAtSwitch())
		parts += int(g.GetToday().GetPartitions())
		lost += int(g.GetRackLocalityLost())
	}
	fmt.Fprintf(w, "KIP-848 migration: %d groups: %d ready, %d caution, %d blocked; %d of %d partitions move at the switch, %d lose rack locality\n\n",
		len(r.GetGroups()), n[assigndv1.MigrationVerdict_MIGRATION_VERDICT_READY], n[assigndv1.MigrationVerdict_MIGRATION_VERDICT_CAUTION],
		n[assigndv1.MigrationVerdict_MIGRATION_VERDICT_BLOCKED], moved, parts, lost)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tPROTOCOL\tTODAY\tSERVER-SIDE\tMOVED\tIMBALANCE\tTOPIC SKEW\tRACK LOST\tUSER DATA\tVERDICT\tREASON")
	for _, g := range r.GetGroups() {
		t, af := g.GetToday(), g.GetAfter()
		mv, imb, skew, lostCell := "-", "-", "-", "-"
		if af != nil {
			mv = fmt.Sprint(g.GetMovedAtSwitch())
			imb = arrowN(t.GetImbalance(), af.GetImbalance())
			skew = arrowN(t.GetWorstTopicSkew(), af.GetWorstTopicSkew())
			lostCell = fmt.Sprint(g.GetRackLocalityLost())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", g.GetGroupId(), g.GetProtocolName(), orDash(g.GetCurrentAssignor()),
			orDash(g.GetServerAssignor()), mv, imb, skew, lostCell, yesNo(g.GetUserData()), verdictName(g.GetVerdict()), g.GetReason())
	}
	return tw.Flush()
}
