package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
)

// diffFlags tune `assignctl policy diff`.
type diffFlags struct {
	prefix   string
	maxRatio float64
	limit    int
}

// diffSummary is the fleet's summary of a policy diff.
type diffSummary struct {
	Groups            int     `json:"groups"`
	Changed           int     `json:"changed"`
	Failed            int     `json:"failed"`
	Partitions        int     `json:"partitions"`
	MovedCurrent      int     `json:"movedCurrent"`
	MovedCandidate    int     `json:"movedCandidate"`
	WithheldCurrent   int     `json:"withheldCurrent"`
	WithheldCandidate int     `json:"withheldCandidate"`
	FollowupCurrent   int     `json:"followupsCurrent"`
	FollowupCandidate int     `json:"followupsCandidate"`
	OffRackCurrent    int     `json:"offRackCurrent"`
	OffRackCandidate  int     `json:"offRackCandidate"`
	MaxMovedRatio     float64 `json:"maxMovedRatio"`
}

// diffResult is policy diff's -o json output.
type diffResult struct {
	CurrentRevision   string            `json:"currentRevision"`
	CandidateRevision string            `json:"candidateRevision"`
	Summary           diffSummary       `json:"summary"`
	CheckPassed       bool              `json:"checkPassed"`
	CheckFailures     []string          `json:"checkFailures,omitempty"`
	Groups            []json.RawMessage `json:"groups"`
}

func (a *app) policyDiffCommand() *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff CANDIDATE.yaml",
		Short: "what a candidate policy would do to every group the server has an input of",
		Long: `Validate CANDIDATE.yaml locally, then have the server run it and its current
policy on each group's latest recorded input (PreviewPolicy) and compare, for
the group's next rebalance: the rule, assignor and parameters, partitions
moved, withheld, follow-ups, imbalance, the worst per-topic skew and the
partitions off their rack. The server replays one group at a time on its own
slot, never taking an Assign call's capacity; raise --timeout for a large
fleet. Groups are sorted by impact (a group the candidate cannot serve first,
then the share of its partitions the candidate moves), after a fleet summary.

Exit status 4 (the check failed) when the candidate cannot serve a group or, with
--fail-moved-ratio R, when any group would move more than R of its
partitions; the reasons are printed (and in -o json, checkFailures).
-o json prints {"currentRevision", "candidateRevision", "summary",
"checkPassed", "checkFailures", "groups": [GroupPreview...]}.`,
		Args: exactArgs(1),
		RunE: a.runE(func(ctx context.Context, args []string) error {
			if f.limit < 0 {
				return usageError{fmt.Errorf("--limit %d: must not be negative", f.limit)}
			}
			file := args[0]
			if _, err := policy.Load(file); err != nil {
				for _, e := range problems(err) {
					fmt.Fprintln(a.errOut, e)
				}
				return usageError{fmt.Errorf("%s is not a valid policy (see assignctl policy check)", file)}
			}
			data, err := os.ReadFile(file)
			if err != nil {
				return usageError{err}
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.close()
			res := &assigndv1.PreviewPolicyResponse{}
			req := &assigndv1.PreviewPolicyRequest{Policy: data, FileName: filepath.Base(file), GroupIdPrefix: f.prefix, PageSize: 100}
			for {
				resp, err := c.replay.PreviewPolicy(ctx, req)
				if err != nil {
					return err
				}
				res.CurrentRevision, res.CandidateRevision = resp.GetCurrentRevision(), resp.GetCandidateRevision()
				res.Groups = append(res.Groups, resp.GetGroups()...)
				if req.PageToken = resp.GetNextPageToken(); req.PageToken == "" {
					break
				}
			}
			failures := rankAndCheck(f, res)
			if err := a.printDiff(res, failures, f); err != nil {
				return err
			}
			if len(failures) > 0 {
				return errCheckFailed
			}
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.prefix, "prefix", "", "only groups whose id starts with `P`")
	fl.Float64Var(&f.maxRatio, "fail-moved-ratio", -1, "exit 4 if any group would move more than this share `R` (0 to 1) of its partitions; negative: no limit")
	fl.IntVar(&f.limit, "limit", 0, "table: show at most `N` groups (the most affected); 0: all")
	return cmd
}

// rankAndCheck sorts the groups by impact and checks the candidate for exit
// status 4 (a group it cannot serve, a group past --fail-moved-ratio): the
// reasons the check fails, none when it passes.
func rankAndCheck(f diffFlags, res *assigndv1.PreviewPolicyResponse) []string {
	slices.SortStableFunc(res.Groups, func(x, y *assigndv1.GroupPreview) int {
		if ex, ey := x.GetCandidate().GetError() != "", y.GetCandidate().GetError() != ""; ex != ey {
			if ex {
				return -1
			}
			return 1
		}
		switch {
		case x.GetMovedRatio() != y.GetMovedRatio():
			if x.GetMovedRatio() > y.GetMovedRatio() {
				return -1
			}
			return 1
		case movedDelta(x) != movedDelta(y):
			return int(movedDelta(y) - movedDelta(x))
		case changed(x) != changed(y):
			if changed(x) {
				return -1
			}
			return 1
		}
		return strings.Compare(x.GetGroupId(), y.GetGroupId())
	})
	var fails []string
	for _, g := range res.GetGroups() {
		if e := g.GetCandidate().GetError(); e != "" {
			fails = append(fails, fmt.Sprintf("%s: the candidate cannot serve it: %s", g.GetGroupId(), e))
		} else if f.maxRatio >= 0 && g.GetMovedRatio() > f.maxRatio {
			fails = append(fails, fmt.Sprintf("%s: moves %d of %d partitions (%.0f%%), over --fail-moved-ratio %g",
				g.GetGroupId(), g.GetCandidate().GetFigures().GetMoved(), g.GetCandidate().GetFigures().GetPartitions(), 100*g.GetMovedRatio(), f.maxRatio))
		}
	}
	return fails
}

func movedDelta(g *assigndv1.GroupPreview) int32 {
	d := g.GetCandidate().GetFigures().GetMoved() - g.GetCurrent().GetFigures().GetMoved()
	return max(d, -d)
}

func changed(g *assigndv1.GroupPreview) bool {
	return g.GetRuleChanged() || g.GetAssignorChanged() || g.GetParamsChanged() || g.GetCandidate().GetError() != ""
}

func summarize(gs []*assigndv1.GroupPreview) diffSummary {
	var s diffSummary
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	for _, g := range gs {
		cur, cand := g.GetCurrent().GetFigures(), g.GetCandidate().GetFigures()
		s.Groups++
		s.Changed += b2i(changed(g))
		s.Failed += b2i(g.GetCandidate().GetError() != "")
		s.Partitions += int(cur.GetPartitions())
		s.MovedCurrent += int(cur.GetMoved())
		s.MovedCandidate += int(cand.GetMoved())
		s.WithheldCurrent += int(cur.GetWithheld())
		s.WithheldCandidate += int(cand.GetWithheld())
		s.FollowupCurrent += b2i(cur.GetFollowupRequired())
		s.FollowupCandidate += b2i(cand.GetFollowupRequired())
		s.OffRackCurrent += int(cur.GetOffRack())
		s.OffRackCandidate += int(cand.GetOffRack())
		s.MaxMovedRatio = max(s.MaxMovedRatio, g.GetMovedRatio())
	}
	return s
}

func (a *app) printDiff(res *assigndv1.PreviewPolicyResponse, failures []string, f diffFlags) error {
	sum := summarize(res.GetGroups())
	if a.json() {
		out := diffResult{CurrentRevision: res.GetCurrentRevision(), CandidateRevision: res.GetCandidateRevision(),
			Summary: sum, CheckPassed: len(failures) == 0, CheckFailures: failures, Groups: []json.RawMessage{}}
		for _, g := range res.GetGroups() {
			b, err := protojson.Marshal(g)
			if err != nil {
				return err
			}
			out.Groups = append(out.Groups, b)
		}
		enc := json.NewEncoder(a.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := a.out
	fmt.Fprintf(w, "policy %s -> %s: %d groups, %d change, %d the candidate cannot serve\n",
		orDash(res.GetCurrentRevision()), orDash(res.GetCandidateRevision()), sum.Groups, sum.Changed, sum.Failed)
	fmt.Fprintf(w, "next rebalance, current -> candidate: moved %d -> %d of %d partitions, withheld %d -> %d, follow-ups %d -> %d, off rack %d -> %d; worst group moves %.0f%%\n\n",
		sum.MovedCurrent, sum.MovedCandidate, sum.Partitions, sum.WithheldCurrent, sum.WithheldCandidate,
		sum.FollowupCurrent, sum.FollowupCandidate, sum.OffRackCurrent, sum.OffRackCandidate, 100*sum.MaxMovedRatio)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tCHANGE\tRULE\tASSIGNOR\tMOVED\tWITHHELD\tFOLLOW-UP\tIMBALANCE\tTOPIC SKEW\tOFF RACK\tMOVED %")
	for i, g := range res.GetGroups() {
		if f.limit > 0 && i == f.limit {
			fmt.Fprintf(tw, "(%d more)\n", len(res.GetGroups())-i)
			break
		}
		cur, cand := g.GetCurrent(), g.GetCandidate()
		cf, nf := cur.GetFigures(), cand.GetFigures()
		if cand.GetError() != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tcandidate fails: %s\n", g.GetGroupId(), changeOf(g), arrow(cur.GetRule(), "-"), arrow(cur.GetAssignor(), "-"), clipCell(cand.GetError()))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\n", g.GetGroupId(), changeOf(g),
			arrow(cur.GetRule(), cand.GetRule()), arrow(cur.GetAssignor(), cand.GetAssignor()),
			arrowN(cf.GetMoved(), nf.GetMoved()), arrowN(cf.GetWithheld(), nf.GetWithheld()),
			arrow(yesNo(cf.GetFollowupRequired()), yesNo(nf.GetFollowupRequired())),
			arrowN(cf.GetImbalance(), nf.GetImbalance()), arrowN(cf.GetWorstTopicSkew(), nf.GetWorstTopicSkew()),
			arrowN(cf.GetOffRack(), nf.GetOffRack()), 100*g.GetMovedRatio())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printCheck(w, failures)
	return nil
}

func printCheck(w io.Writer, failures []string) {
	if len(failures) == 0 {
		fmt.Fprintln(w, "\ncheck: passed")
		return
	}
	fmt.Fprintf(w, "\ncheck: FAILED (%d)\n", len(failures))
	for _, g := range failures {
		fmt.Fprintf(w, "  %s\n", g)
	}
}

// changeOf lists what the candidate changes for the group.
func changeOf(g *assigndv1.GroupPreview) string {
	var c []string
	if g.GetRuleChanged() {
		c = append(c, "rule")
	}
	if g.GetAssignorChanged() {
		c = append(c, "assignor")
	}
	if g.GetParamsChanged() {
		c = append(c, "params")
	}
	if len(c) == 0 {
		return "-"
	}
	return strings.Join(c, ",")
}

// arrow is "a" when both sides are equal, else "a -> b".
func arrow(a, b string) string {
	if a == b {
		return a
	}
	return a + " -> " + b
}

func arrowN(a, b int32) string { return arrow(fmt.Sprint(a), fmt.Sprint(b)) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clipCell(s string) string {
	if len(s) > 100 {
		return s[:97] + "..."
	}
	return s
}
