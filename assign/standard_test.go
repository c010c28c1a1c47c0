package assign_test

import (
	"slices"
	"testing"

	"github.com/assignd/assignd/assign"
)

func TestStandards(t *testing.T) {
	want := map[string][]assign.RebalanceProtocol{
		assign.NameCooperativeSticky: {assign.Cooperative, assign.Eager},
		assign.NameRange:             {assign.Eager},
		assign.NameRoundRobin:        {assign.Eager},
		assign.NameSticky:            {assign.Eager},
	}
	std := assign.Standards()
	if len(std) != len(want) {
		t.Fatalf("Standards() has %d names, want %d", len(std), len(want))
	}
	names := assign.StandardNames()
	if !slices.IsSorted(names) {
		t.Errorf("StandardNames() = %v, not sorted", names)
	}
	for i, s := range std {
		if names[i] != s.Name {
			t.Errorf("StandardNames()[%d] = %q, Standards()[%d].Name = %q", i, names[i], i, s.Name)
		}
		if !slices.Equal(s.Protocols, want[s.Name]) {
			t.Errorf("%s: Protocols = %v, want %v", s.Name, s.Protocols, want[s.Name])
		}
		a, ok := assign.Lookup(s.Name, 0)
		if !ok || assign.Ref(a) != assign.Ref(s.Assignor) {
			t.Errorf("%s: Assignor = %s, Lookup(name, 0) = %v", s.Name, assign.Ref(s.Assignor), a)
		}
		for _, p := range s.Protocols {
			if !assign.Supports(s.Assignor, p) {
				t.Errorf("%s: its standard assignor does not support %v", s.Name, p)
			}
		}
		got, ok := assign.StandardOf(s.Name)
		if !ok || got.Name != s.Name || got.Allows(assign.Cooperative) != slices.Contains(want[s.Name], assign.Cooperative) {
			t.Errorf("StandardOf(%q) = %+v, %v", s.Name, got, ok)
		}
	}
	if _, ok := assign.StandardOf("uniform"); ok {
		t.Error(`StandardOf("uniform") found a standard name`)
	}
	// The table is not shared with callers.
	std[0].Protocols[0] = assign.ProtocolUnspecified
	if assign.Standards()[0].Protocols[0] == assign.ProtocolUnspecified {
		t.Error("Standards() returned the table's own slices")
	}
}
