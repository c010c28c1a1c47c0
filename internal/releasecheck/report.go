package releasecheck

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteSummary writes r for a person: the verdict, each failed check with
// its reason, then the figures the checks looked at.
func WriteSummary(w io.Writer, r Report) error {
	verdict := "PASSED"
	if !r.Passed {
		verdict = "FAILED"
	}
	var b strings.Builder
	early := ""
	if r.StoppedEarly {
		early = " (the window was ended early)"
	}
	fmt.Fprintf(&b, "release check %s for group %s after %s%s\n", verdict, r.Group, r.End.Sub(r.Start).Round(time.Second), early)
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "  FAIL %s: %s\n", f.Check, f.Reason)
	}
	gens := "-"
	if r.Decisions > 0 {
		gens = fmt.Sprintf("%d to %d", r.FirstGeneration, r.LastGeneration)
	}
	fmt.Fprintf(&b, "  decisions:        %d (generations %s), protocols %s (expected %s)\n", r.Decisions, gens, list(r.Protocols), dash(r.Expect))
	fmt.Fprintf(&b, "  follow-up chains: %d completed, longest %s (bound %s)\n", r.FollowupChains, r.LongestChain, bound(r.Bounds.FollowupWithin))
	unowned := "none"
	if r.UnownedPartition != "" {
		unowned = fmt.Sprintf("%s %s", r.UnownedPartition, r.LongestUnowned)
	}
	fmt.Fprintf(&b, "  longest unowned:  %s (bound %s)", unowned, bound(r.Bounds.MaxUnowned))
	if r.HistoryLongestUnowned > 0 {
		fmt.Fprintf(&b, "; the history's over the decisions it keeps: %s", r.HistoryLongestUnowned)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  members at end:   %d\n", r.Members)
	if r.PollErrors > 0 {
		fmt.Fprintf(&b, "  polls:            %d, %d found no server\n", r.Polls, r.PollErrors)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the duration, rounded to the millisecond.
func (d Duration) String() string { return time.Duration(d).Round(time.Millisecond).String() }

func bound(d Duration) string {
	if d <= 0 {
		return "off"
	}
	return d.String()
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}

func dash(s string) string {
	if s == "" {
		return "any"
	}
	return s
}
