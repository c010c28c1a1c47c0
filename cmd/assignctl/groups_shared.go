package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// printGaps says, under `assignctl groups`, which replica runs could not
// share some of their records through Kafka: their groups' histories are
// missing those decisions on the other replicas.
func printGaps(w io.Writer, rs []*assigndv1.HistoryReplica) error {
	for _, r := range rs {
		if r.GetDropped() == 0 {
			continue
		}
		fmt.Fprintf(w, "\nreplica %s (run %x) could not share %d records:\n", r.GetReplica(), r.GetIncarnation(), r.GetDropped())
		for _, g := range r.GetGaps() {
			groups := fmt.Sprint(g.GetGroups())
			if g.GetGroupsTruncated() {
				groups += " and more"
			}
			fmt.Fprintf(w, "  %d from %s to %s (%s), groups %s\n", g.GetDropped(),
				g.GetFirstDropped().AsTime().UTC().Format(time.RFC3339), g.GetLastDropped().AsTime().UTC().Format(time.RFC3339), g.GetReason(), groups)
		}
	}
	return nil
}

// printChurn prints the group's rebalances in the last hour and the
// longest time partitions stayed unowned.
func printChurn(w io.Writer, s *assigndv1.GroupSummary) {
	fmt.Fprintf(w, "\nRebalances in the last hour: %d\nLongest unowned (cooperative, decisions kept): %s\n",
		s.GetRebalancesLastHour(), s.GetLongestUnowned().AsDuration().Round(time.Millisecond))
}

// printShadows lists the shadow runs' records: what the rule's shadow
// assignor would have decided.
func printShadows(w io.Writer, ds []*assigndv1.Decision) error {
	if len(ds) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nShadow runs (not served; newest first):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TIME\tGEN\tSHADOW ASSIGNOR\tPOLICY\tMOVED\tREVOKED\tWITHHELD\tIMBALANCE\tFOLLOW-UP\tENGINE")
	for _, d := range ds {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s/%s\t%d\t%d\t%d\t%d\t%t\t%s\n", d.GetTime().AsTime().UTC().Format(time.RFC3339),
			d.GetGenerationId(), d.GetAssignor(), d.GetPolicyRule(), d.GetPolicyRevision(), d.GetMoved(), d.GetRevoked(),
			d.GetWithheld(), d.GetImbalance(), d.GetFollowupRequired(), d.GetEngineTime().AsDuration().Round(time.Microsecond))
	}
	return tw.Flush()
}
