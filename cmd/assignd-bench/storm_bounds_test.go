package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestIssueBounds: each of issue 28's bounds is met exactly when its
// figure is within it, and the report says which are not.
func TestIssueBounds(t *testing.T) {
	good := stormResults{
		storm:    stormRun{ok: 5000, p99: 240 * time.Millisecond, last: 990 * time.Millisecond},
		capacity: 6000, peer: 1900,
		overloads: map[int]stormRun{
			1:  {ok: 5500, goodput: 5500, refusedMax: 40 * time.Millisecond},
			64: {ok: 5600, goodput: 5600, refusedMax: 50 * time.Millisecond},
		},
	}
	for _, tt := range []struct {
		name   string
		change func(*stormResults)
		notMet []string // the bounds not met, by a word of theirs
	}{
		{"all within", func(*stormResults) {}, nil},
		{"one refused in the storm", func(r *stormResults) { r.storm.refused = 1 }, []string{"answered in time"}},
		{"one late in the storm", func(r *stormResults) { r.storm.failed = 1 }, []string{"answered in time"}},
		{"p99 over", func(r *stormResults) { r.storm.p99 = 251 * time.Millisecond }, []string{"p99"}},
		{"last answer over", func(r *stormResults) { r.storm.last = 1001 * time.Millisecond }, []string{"last answer"}},
		{"under 3× the peer", func(r *stormResults) { r.peer = 2001 }, []string{"3×"}},
		{"goodput under 90% over 64", func(r *stormResults) { o := r.overloads[64]; o.goodput = 5399; r.overloads[64] = o },
			[]string{"64 connections: goodput"}},
		{"a slow refusal over 1", func(r *stormResults) { o := r.overloads[1]; o.refusedMax = 51 * time.Millisecond; r.overloads[1] = o },
			[]string{"1 connections: every refusal"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			r.overloads = map[int]stormRun{1: good.overloads[1], 64: good.overloads[64]}
			tt.change(&r)
			var out bytes.Buffer
			reportBounds(&out, issueBounds(r))
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 8 {
				t.Fatalf("%d bounds reported, want 8:\n%s", len(lines), out.String())
			}
			var notMet []string
			for _, l := range lines {
				if strings.Contains(l, "NOT MET") {
					notMet = append(notMet, l)
				}
			}
			if len(notMet) != len(tt.notMet) {
				t.Fatalf("not met:\n%s\nwant %d: %v", strings.Join(notMet, "\n"), len(tt.notMet), tt.notMet)
			}
			for i, w := range tt.notMet {
				if !strings.Contains(notMet[i], w) {
					t.Errorf("not met %q, want the one about %q", notMet[i], w)
				}
			}
		})
	}
}
