package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// policyStatusCommand prints the staged rollouts of the server's policy.
func (a *app) policyStatusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "show the staged rollouts of the server's policy: step, percent, since, next evaluation, halts",
		Long: `Show each rule of the serving policy revision whose rollout has steps: the
step it serves and its percent, since when, when the gate is next evaluated
and what the last evaluation found, and, for a halted or rolled-back rule,
the reason with the failing groups and measures. Exits 4 when a rollout
halted or rolled back, so that a pipeline can stop on it. -o json prints the
RolloutStatusResponse.`,
		Example: `  assignctl policy status
  assignctl policy status -o json`,
		Args: cobra.NoArgs,
		RunE: a.runConn(func(ctx context.Context, c *conn, _ []string) error {
			resp, err := assigndv1.NewRolloutServiceClient(c.cc).RolloutStatus(ctx, &assigndv1.RolloutStatusRequest{})
			if err != nil {
				return err
			}
			if a.json() {
				if err := printProtoJSON(a.out, resp, false); err != nil {
					return err
				}
			} else {
				printStatus(a.out, resp, time.Now())
			}
			for _, r := range resp.GetRules() {
				if r.GetHalted() || r.GetRolledBack() {
					return errCheckFailed
				}
			}
			return nil
		}),
	}
}

func printStatus(w io.Writer, resp *assigndv1.RolloutStatusResponse, now time.Time) {
	if len(resp.GetRules()) == 0 {
		fmt.Fprintf(w, "policy revision %s has no staged rollouts\n", resp.GetRevision())
		return
	}
	fmt.Fprintf(w, "policy revision %s\n", resp.GetRevision())
	for _, r := range resp.GetRules() {
		fmt.Fprintln(w)
		printRuleRollout(w, r, now, "")
	}
}

// printRuleRollout prints one rule's staged rollout as labelled lines.
func printRuleRollout(w io.Writer, r *assigndv1.RolloutRuleState, now time.Time, indent string) {
	row := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%s  %-12s "+format+"\n", append([]any{indent, label}, args...)...)
	}
	fmt.Fprintf(w, "%srule %s\n", indent, r.GetRule())
	state := "running"
	switch {
	case r.GetRolledBack():
		state = "ROLLED BACK"
	case r.GetHalted():
		state = "HALTED"
	case r.GetStep() >= r.GetSteps():
		state = "complete"
	}
	step := min(r.GetStep(), r.GetSteps()-1) + 1
	row("step", "%d of %d, %s%% (%s)", step, r.GetSteps(), percentText(r.GetPercent()), state)
	if r.GetStartedAt() != nil {
		row("started", "%s", when(r.GetStartedAt().AsTime(), now))
		row("since", "%s", when(r.GetSince().AsTime(), now))
	} else {
		row("started", "not yet agreed (serving the first step)")
	}
	if r.GetPendingAt() != nil {
		row("pending", "step %d from %s", r.GetPendingStep()+1, when(r.GetPendingAt().AsTime(), now))
	}
	if r.GetNextEvaluation() != nil {
		row("next check", "%s", when(r.GetNextEvaluation().AsTime(), now))
	}
	if r.GetLastEvaluation() != "" {
		row("last check", "%s", r.GetLastEvaluation())
	}
	if r.GetReason() != "" && (r.GetHalted() || r.GetRolledBack()) {
		row("reason", "%s", r.GetReason())
	}
	for i, f := range r.GetFailures() {
		label := ""
		if i == 0 {
			label = "failing"
		}
		base := "no baseline"
		if f.GetBaseline() >= 0 {
			base = fmt.Sprintf("baseline %s", num(f.GetBaseline()))
		}
		row(label, "%s %s = %s > %s (%s)", f.GetGroupId(), f.GetMeasure(), num(f.GetValue()), num(f.GetLimit()), base)
	}
	if !r.GetAgreed() {
		row("agreement", "this replica has not read its own record back from the log yet")
	}
	for _, x := range r.GetWarnings() {
		row("warning", "%s", x)
	}
}

func percentText(p float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", p), "0"), ".")
}

func num(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", x), "0"), ".")
}

// when formats a time with how far it is from now.
func when(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	rel := "now"
	switch {
	case d > 0:
		rel = "in " + d.String()
	case d < 0:
		rel = (-d).String() + " ago"
	}
	return fmt.Sprintf("%s (%s)", t.UTC().Format(time.RFC3339), rel)
}
