package grouplab

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLedger(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o0, o1, a0 := TP{Topic: "orders", Partition: 0}, TP{Topic: "orders", Partition: 1}, TP{Topic: "audit", Partition: 0}
	l := NewLedger()

	l.Assigned("m1", SetOf(o0, o1), at)
	l.Assigned("m2", SetOf(a0), at)
	if !l.Covers(SetOf(o0, o1, a0), []string{"m1", "m2"}) || l.Covers(SetOf(o0, o1, a0), []string{"m1"}) {
		t.Error("Covers: m1 and m2 own every partition, m1 alone does not")
	}
	// o1 goes to m2 before m1 gave it up: a violation.
	l.Assigned("m2", SetOf(o1), at)
	if p := l.Problems(); len(p) != 1 || !strings.Contains(p[0], "m2 was given orders/1 while m1 still owned it") {
		t.Errorf("Problems() = %q", p)
	}
	// m1 revoking o1 late does not free it: m2 owns it now, and m3
	// getting it is a second violation.
	l.Revoked("m1", SetOf(o1), at, "revoked")
	l.Assigned("m3", SetOf(o1), at)
	if p := l.Problems(); len(p) != 2 {
		t.Errorf("a partition given to m3 while m2 owns it: Problems() = %q", p)
	}
	l.Replaced("m2", SetOf(a0), at)
	if got := l.OwnedBy("m2"); !got.Equal(SetOf(a0)) {
		t.Errorf("after Replaced, m2 owns %s", got)
	}
	if got := l.Counts(); got["m1"] != 1 || got["m2"] != 1 || got["m3"] != 1 {
		t.Errorf("Counts() = %v", got)
	}
	l.RevokedAll("m1", at, "lost")
	if got := l.Owners(); got[o0] != "" || got[o1] != "m3" || got[a0] != "m2" {
		t.Errorf("Owners() = %v", got)
	}
	if h := l.History(); !strings.Contains(h, "m1         lost     [orders/0]") {
		t.Errorf("History():\n%s", h)
	}
}

func TestLedgerSessions(t *testing.T) {
	at := time.Now()
	o0, o1 := TP{Topic: "orders", Partition: 0}, TP{Topic: "orders", Partition: 1}
	l := NewLedger()
	l.SessionStarted("m1", 3, []TP{o1, o0}, at)
	l.Produced(o0, 0)
	l.Produced(o0, 1)
	l.ConsumeClaimed("m1", 3, o0, 0, "a", at)
	if n := l.Unconsumed(); n != 1 || l.ProducedCount() != 2 {
		t.Errorf("Unconsumed() = %d, ProducedCount() = %d; want 1 and 2", n, l.ProducedCount())
	}
	s, _ := l.Sessions()
	if got := s["m1"]; got.Generation != 3 || !slices.Equal(got.Claims, []TP{o0, o1}) {
		t.Errorf("Sessions()[m1] = %+v", got)
	}
	l.SessionEnded("m1", 3, at)
	if s, _ := l.Sessions(); len(s) != 0 {
		t.Errorf("after SessionEnded: %v", s)
	}
	// Consumed by a member that claims nothing: a violation; the record
	// counts as consumed, twice over.
	l.ConsumeClaimed("m2", 4, o0, 0, "a", at)
	l.ConsumeClaimed("m2", 4, o0, 1, "b", at)
	if p := l.Problems(); len(p) != 2 || !strings.Contains(p[0], "m2 consumed orders/0@0 without claiming it") {
		t.Errorf("Problems() = %q", p)
	}
	if l.Unconsumed() != 0 || l.Duplicates() != 1 || len(l.ConsumersOf("a")) != 2 {
		t.Errorf("Unconsumed() = %d, Duplicates() = %d, ConsumersOf(a) = %v", l.Unconsumed(), l.Duplicates(), l.ConsumersOf("a"))
	}
	l.Led("m2", "fallback Unavailable", at)
	if ls := l.Leaders(); len(ls) != 1 || ls[0].Member != "m2" || ls[0].Detail != "fallback Unavailable" {
		t.Errorf("Leaders() = %+v", ls)
	}
}
