package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// stormResults is what -storm measured, for the checks of issue 28's
// bounds.
type stormResults struct {
	storm     stormRun
	overloads map[int]stormRun // by connections
	capacity  float64          // assignd's sustained calls per second
	peer      float64          // the franz-go peer's
}

// bound is one of issue 28's bounds, checked against a run.
type bound struct {
	what string
	got  string
	met  bool
}

// issueBounds checks the results against issue 28's done-when: the storm
// of 5,000 all answered in time, p99 within 250 ms, the last answer
// within a second; sustained at least 3× the peer; and at 10,000 groups,
// over each number of connections, goodput at least 90% of sustained and
// every refusal within 50 ms.
func issueBounds(r stormResults) []bound {
	s := r.storm
	bs := []bound{
		{"storm: every call answered in time", fmt.Sprintf("%d refused, %d failed, %d invalid", s.refused, s.failed, s.invalid), s.refused+s.failed+s.invalid == 0},
		{"storm: p99 ≤ 250ms", s.p99.Round(time.Millisecond).String(), s.ok > 0 && s.p99 <= 250*time.Millisecond},
		{"storm: last answer ≤ 1s", s.last.Round(time.Millisecond).String(), s.ok > 0 && s.last <= time.Second},
		{"sustained ≥ 3× the franz-go peer", fmt.Sprintf("%.2f×", r.capacity/r.peer), r.peer > 0 && r.capacity >= 3*r.peer},
	}
	for _, n := range slices.Sorted(maps.Keys(r.overloads)) {
		o := r.overloads[n]
		share := 0.0
		if r.capacity > 0 {
			share = o.goodput / r.capacity
		}
		bs = append(bs,
			bound{fmt.Sprintf("overload, %d connections: goodput ≥ 90%% of sustained", n), fmt.Sprintf("%.0f%%", 100*share), share >= 0.9},
			bound{fmt.Sprintf("overload, %d connections: every refusal within 50ms", n), o.refusedMax.Round(time.Millisecond).String(),
				o.refusedMax <= 50*time.Millisecond})
	}
	return bs
}

// reportBounds writes one line per bound: met or not, and the figure.
func reportBounds(out io.Writer, bs []bound) {
	for _, b := range bs {
		verdict := "NOT MET"
		if b.met {
			verdict = "met"
		}
		fmt.Fprintf(out, "issue 28 bound %-7s %s: %s\n", verdict, b.what, b.got)
	}
}
