package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// groupsFlags filter `assignctl groups`.
type groupsFlags struct {
	signal, assignor, rule, prefix string
	limit                          int
}

func (a *app) groupsCommand() *cobra.Command {
	var f groupsFlags
	cmd := &cobra.Command{
		Use:   "groups",
		Short: "list the consumer groups the server remembers, with their signals",
		Long: `List the consumer groups the server remembers decisions of (the history is
each replica's own, or the fleet's when assignd shares it through Kafka with
--history-brokers), sorted by group id, with the latest decision's protocol,
assignor, rule, members and partitions, and the signals that hold now; then
the replicas that could not share some records (the gaps). Filters combine;
--signal takes a signal name such as rebalance-storm, generation-gap,
eager-under-cooperative, eager-only-protocol, protocol-regression,
stuck-followup, imbalance, frequent-rebalances or long-unowned. -o json
prints the ListGroupsResponse pages merged into one.`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(ctx context.Context, _ []string) error {
			sig, err := parseSignal(f.signal)
			if err != nil {
				return usageError{err}
			}
			if f.limit < 0 {
				return usageError{fmt.Errorf("--limit %d: must not be negative", f.limit)}
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.close()
			req := &assigndv1.ListGroupsRequest{Signal: sig, Assignor: f.assignor, PolicyRule: f.rule, GroupIdPrefix: f.prefix, PageSize: 1000}
			all := &assigndv1.ListGroupsResponse{}
			for {
				resp, err := c.history.ListGroups(ctx, req)
				if err != nil {
					return err
				}
				all.Groups = append(all.Groups, resp.GetGroups()...)
				all.TotalGroups = resp.GetTotalGroups()
				all.Replicas = append(all.Replicas, resp.GetReplicas()...)
				if resp.GetNextPageToken() == "" || f.limit > 0 && len(all.Groups) >= f.limit {
					break
				}
				req.PageToken = resp.GetNextPageToken()
			}
			if f.limit > 0 && len(all.Groups) > f.limit {
				all.Groups = all.Groups[:f.limit]
			}
			if a.json() {
				return printProtoJSON(a.out, all, false)
			}
			if err := printGroups(a.out, all.GetGroups(), time.Now()); err != nil {
				return err
			}
			return printGaps(a.out, all.GetReplicas())
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.signal, "signal", "", "only groups where this `signal` holds")
	fl.StringVar(&f.assignor, "assignor", "", "only groups whose latest assignor is this `name` or name@version")
	fl.StringVar(&f.rule, "rule", "", "only groups whose latest policy `rule` is this one")
	fl.StringVar(&f.prefix, "prefix", "", "only group ids starting with this `prefix`")
	fl.IntVar(&f.limit, "limit", 0, "print at most this many groups; 0: all")
	return cmd
}

func printGroups(w io.Writer, gs []*assigndv1.GroupSummary, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tPROTOCOL\tASSIGNOR\tRULE\tGEN\tMEMBERS\tPARTITIONS\tIMBALANCE\tLAST SEEN\tSIGNALS")
	for _, g := range gs {
		fmt.Fprintf(tw, "%s\t%s/%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s ago\t%s\n", g.GetGroupId(), g.GetProtocolName(), protocolName(g.GetRebalanceProtocol()),
			g.GetAssignor(), g.GetPolicyRule(), g.GetGenerationId(), g.GetMemberCount(), g.GetPartitions(), g.GetImbalance(),
			now.Sub(g.GetLastSeen().AsTime()).Round(time.Second), signalList(g.GetSignals()))
	}
	return tw.Flush()
}

func (a *app) describeCommand() *cobra.Command {
	var last int
	cmd := &cobra.Command{
		Use:   "describe GROUP",
		Short: "show a group's members, last decisions and signals",
		Long: `Show what the server remembers of one consumer group: its signals and why
each fired, the members of the latest decision with their owned and assigned
partition counts, and the last decisions (newest first) with what moved,
was revoked and was withheld. Exit 1 when the server remembers no decision
of the group. -o json prints the GetGroupResponse.`,
		Args: cobra.ExactArgs(1),
		RunE: a.runE(func(ctx context.Context, args []string) error {
			if last < 0 {
				return usageError{fmt.Errorf("--last %d: must not be negative", last)}
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.close()
			resp, err := c.history.GetGroup(ctx, &assigndv1.GetGroupRequest{GroupId: args[0], MaxDecisions: int32(last)})
			if err != nil {
				return err
			}
			if a.json() {
				return printProtoJSON(a.out, resp, false)
			}
			return printGroup(a.out, resp)
		}),
	}
	cmd.Flags().IntVar(&last, "last", 10, "show the last `n` decisions; 0: all kept")
	return cmd
}

func printGroup(w io.Writer, resp *assigndv1.GetGroupResponse) error {
	s := resp.GetSummary()
	fmt.Fprintf(w, "Group:      %s\nProtocol:   %s (%s)\nAssignor:   %s, rule %s\nGeneration: %d (%d decisions recorded)\n",
		s.GetGroupId(), s.GetProtocolName(), protocolName(s.GetRebalanceProtocol()), s.GetAssignor(), s.GetPolicyRule(),
		s.GetGenerationId(), s.GetDecisionsRecorded())
	fmt.Fprintln(w, "\nSignals:")
	if len(s.GetSignals()) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, f := range s.GetSignals() {
		fmt.Fprintf(w, "  %s: %s\n", signalName(f.GetSignal()), f.GetReason())
	}
	printChurn(w, s)
	ds := resp.GetDecisions()
	if len(ds) == 0 {
		return nil
	}
	latest := ds[0]
	fmt.Fprintf(w, "\nMembers (generation %d, %d in all):\n", latest.GetGenerationId(), latest.GetMemberCount())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  MEMBER\tINSTANCE\tRACK\tOWNED\tASSIGNED")
	for _, m := range latest.GetMembers() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\n", m.GetMemberId(), dash(m.GetGroupInstanceId()), dash(m.GetRack()), m.GetOwned(), m.GetAssigned())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nDecisions (newest first):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TIME\tGEN\tPROTOCOL\tASSIGNOR\tPOLICY\tMEMBERS\tMOVED\tREVOKED\tWITHHELD\tFOLLOW-UP\tENGINE\tCALLER\tCLIENT")
	for _, d := range ds {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s/%s\t%d\t%d\t%d\t%d\t%t\t%s\t%s\t%s\n", d.GetTime().AsTime().UTC().Format(time.RFC3339),
			d.GetGenerationId(), protocolName(d.GetRebalanceProtocol()), d.GetAssignor(), d.GetPolicyRule(), d.GetPolicyRevision(),
			d.GetMemberCount(), d.GetMoved(), d.GetRevoked(), d.GetWithheld(), d.GetFollowupRequired(),
			d.GetEngineTime().AsDuration().Round(time.Microsecond), callerName(d.GetCaller()), dash(d.GetUserAgent()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range ds {
		for _, line := range decisionDetail(d) {
			fmt.Fprintf(w, "  generation %d: %s\n", d.GetGenerationId(), line)
		}
	}
	return printShadows(w, resp.GetShadowDecisions())
}

// decisionDetail says why partitions moved: the revoked and withheld
// lists (as far as the record keeps them) and the warnings.
func decisionDetail(d *assigndv1.Decision) []string {
	var out []string
	if rs := d.GetMoveReasons(); len(rs) > 0 {
		out = append(out, "moved by reason: "+reasonCounts(rs))
	}
	if ms := d.GetMoves(); len(ms) > 0 {
		parts := make([]string, len(ms))
		for i, m := range ms {
			from, to := m.GetFromMemberId(), m.GetToMemberId()
			if from == "" {
				from = "nobody"
			}
			if to == "" {
				to = "withheld"
			}
			parts[i] = fmt.Sprintf("%s[%d] %s→%s (%s)", m.GetTopic(), m.GetPartition(), from, to, apiconv.MoveReasonFromAPI(m.GetReason()))
		}
		out = append(out, "first moves: "+strings.Join(parts, ", "))
	}
	if d.GetRevoked() > 0 {
		out = append(out, fmt.Sprintf("revoked %d: %s", d.GetRevoked(), tpsString(d.GetRevokedPartitions(), d.GetRevoked())))
	}
	if d.GetWithheld() > 0 {
		out = append(out, fmt.Sprintf("withheld %d until their owners revoke them (follow-up rebalance): %s",
			d.GetWithheld(), tpsString(d.GetWithheldPartitions(), d.GetWithheld())))
	}
	for _, w := range d.GetWarnings() {
		out = append(out, "warning: "+w)
	}
	return out
}

func tpsString(tps []*assigndv1.TopicPartitions, total int32) string {
	var parts []string
	n := 0
	for _, tp := range tps {
		ps := make([]string, len(tp.GetPartitions()))
		for i, p := range tp.GetPartitions() {
			ps[i] = fmt.Sprint(p)
		}
		n += len(ps)
		parts = append(parts, tp.GetTopic()+"["+strings.Join(ps, ",")+"]")
	}
	s := strings.Join(parts, " ")
	if int32(n) < total {
		s += fmt.Sprintf(" and %d more", total-int32(n))
	}
	return s
}

func callerName(c *assigndv1.CallerIdentity) string {
	if c == nil {
		return "unauthenticated"
	}
	return c.GetSubject()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// signalName is a signal as the CLI shows and takes it: lower case, with
// dashes, e.g. "generation-gap".
func signalName(s assigndv1.GroupSignal) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(s.String(), "GROUP_SIGNAL_")), "_", "-")
}

func signalList(fs []*assigndv1.FiredSignal) string {
	if len(fs) == 0 {
		return "-"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = signalName(f.GetSignal())
	}
	return strings.Join(names, ",")
}

// parseSignal reads a signal name; "" is no filter.
func parseSignal(name string) (assigndv1.GroupSignal, error) {
	if name == "" {
		return assigndv1.GroupSignal_GROUP_SIGNAL_UNSPECIFIED, nil
	}
	var known []string
	for v := range assigndv1.GroupSignal_name {
		if s := assigndv1.GroupSignal(v); s != assigndv1.GroupSignal_GROUP_SIGNAL_UNSPECIFIED {
			if signalName(s) == name {
				return s, nil
			}
			known = append(known, signalName(s))
		}
	}
	slices.Sort(known)
	return 0, fmt.Errorf("--signal %q: want one of %s", name, strings.Join(known, ", "))
}
