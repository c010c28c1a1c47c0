package console

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestExtraFields: fields the page does not lay out are listed with their
// values: a map's entries sorted by key (as a reason → count map would
// be), a list's elements, an enum by name; unset and shown fields are not.
func TestExtraFields(t *testing.T) {
	reasons, err := structpb.NewStruct(map[string]any{"rebalance": 3, "member-left": 5, "balance": 1})
	if err != nil {
		t.Fatal(err)
	}
	got := extraFields(reasons, nil)
	if len(got) != 1 || got[0].Name != "fields" || strings.Join(got[0].Entries, "|") != "balance: number_value: 1|member-left: number_value: 5|rebalance: number_value: 3" {
		t.Errorf("map field: %+v", got)
	}
	sum := &assigndv1.GroupSummary{GroupId: "g", RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
		Signals: []*assigndv1.FiredSignal{{Signal: assigndv1.GroupSignal_GROUP_SIGNAL_IMBALANCE, Reason: "why"}}}
	got = extraFields(sum, map[protoreflect.FieldNumber]bool{1: true})
	var lines []string
	for _, f := range got {
		lines = append(lines, f.Name+"="+f.Value+strings.Join(f.Entries, ","))
	}
	if want := `rebalance protocol=REBALANCE_PROTOCOL_EAGER|signals=signal: GROUP_SIGNAL_IMBALANCE, reason: why`; strings.Join(lines, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(lines, "|"), want)
	}
	// Everything a Decision has today is laid out by the page.
	d := &assigndv1.Decision{GroupId: "g", CallerBinding: "b", Topics: []string{"t"}, InputDigest: []byte{1}, Replica: "r", Incarnation: 1, Sequence: 2}
	if got := extraFields(d, decisionShown); len(got) != 0 {
		t.Errorf("a Decision's own fields listed as extra: %+v", got)
	}
}
