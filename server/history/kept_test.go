package history

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestReadersSeeWhatWasRecorded: however a Store keeps its records,
// Get, Shadows and RuleGroups return each as it was recorded, every
// field of it, including one that cannot be marshaled (a string that is
// not UTF-8, kept as it is).
func TestReadersSeeWhatWasRecorded(t *testing.T) {
	every := func(group string, gen int32, shadow bool) *assigndv1.Decision {
		d := new(assigndv1.Decision)
		fill(d.ProtoReflect(), 12, 3)
		d.GroupId, d.GenerationId, d.Shadow, d.PolicyRule, d.PolicyRevision = group, gen, shadow, "rule", "rev"
		d.Time = timestamppb.New(t0.Add(time.Duration(gen) * time.Second))
		return d
	}
	notUTF8 := every("g", 3, false)
	notUTF8.Members[0].MemberId = "consumer-\xff"
	for _, tt := range []struct {
		name      string
		decisions []*assigndv1.Decision // oldest first
		shadows   []*assigndv1.Decision
	}{
		{"every field set", []*assigndv1.Decision{every("g", 1, false), every("g", 2, false)}, []*assigndv1.Decision{every("g", 2, true)}},
		{"a record that cannot be marshaled", []*assigndv1.Decision{every("g", 1, false), notUTF8}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(WithClock(func() time.Time { return t0.Add(time.Minute) }))
			if err != nil {
				t.Fatal(err)
			}
			var want []*assigndv1.Decision // newest first, as stamped
			for _, d := range tt.decisions {
				s.Record(d)
				want = append([]*assigndv1.Decision{proto.CloneOf(d)}, want...)
			}
			for _, d := range tt.shadows {
				s.Record(d)
			}
			_, got, ok := s.Get("g", 0)
			if !ok {
				t.Fatal("the group is not kept")
			}
			equalDecisions(t, "Get", got, want)
			equalDecisions(t, "Shadows", s.Shadows("g", 0), reversed(tt.shadows))
			rgs := s.RuleGroups("rule", "rev", func(d *assigndv1.Decision) bool { return len(d.GetMembers()) > 0 })
			if len(rgs) != 1 {
				t.Fatalf("RuleGroups found %d groups, want 1", len(rgs))
			}
			equalDecisions(t, "RuleGroups", rgs[0].Decisions, want)
			equalDecisions(t, "RuleGroups' shadows", rgs[0].Shadows, reversed(tt.shadows))
		})
	}
}

var timestampName = (*timestamppb.Timestamp)(nil).ProtoReflect().Descriptor().FullName()

func reversed(ds []*assigndv1.Decision) []*assigndv1.Decision {
	var out []*assigndv1.Decision
	for _, d := range ds {
		out = append([]*assigndv1.Decision{d}, out...)
	}
	return out
}

func equalDecisions(t *testing.T, what string, got, want []*assigndv1.Decision) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d decisions, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("%s: decision %d is\n%v\nwant\n%v", what, i, got[i], want[i])
		}
	}
}

// TestSummaryKeepsEveryScalar: a record's summary holds every field that
// is neither a list nor a message other than a timestamp, as the record
// has it, and nothing else, so that a field added to Decision reaches the
// signals and List's filters without a change here.
func TestSummaryKeepsEveryScalar(t *testing.T) {
	d := new(assigndv1.Decision)
	fill(d.ProtoReflect(), 5, 2)
	sum := keep(d).sum.ProtoReflect()
	fields := d.ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		timestamp := fd.Message() != nil && fd.Message().FullName() == timestampName
		scalar := !fd.IsList() && (fd.Message() == nil || timestamp)
		switch {
		case scalar && !sum.Has(fd):
			t.Errorf("the summary lacks %s", fd.Name())
		case scalar && !sum.Get(fd).Equal(d.ProtoReflect().Get(fd)):
			t.Errorf("the summary's %s is %v, the record's %v", fd.Name(), sum.Get(fd), d.ProtoReflect().Get(fd))
		case !scalar && sum.Has(fd):
			t.Errorf("the summary holds %s, which only the whole record needs", fd.Name())
		}
	}
	var kinds []string
	for i := range fields.Len() {
		if fd := fields.Get(i); fd.Kind() == protoreflect.GroupKind || fd.IsMap() {
			kinds = append(kinds, string(fd.Name()))
		}
	}
	if len(kinds) > 0 {
		t.Errorf("fields the summary does not know how to keep: %s", strings.Join(kinds, ", "))
	}
}
