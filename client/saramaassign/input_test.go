package saramaassign

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/assign"
)

func TestPartitionCount(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ids      []int32
		count    int64
		distinct int
		listed   []int32 // nil: dense
	}{
		{"none", nil, 0, 0, nil},
		{"dense as sarama lists them", []int32{0, 1, 2, 3}, 4, 4, nil},
		{"dense, unsorted", []int32{2, 0, 3, 1}, 4, 4, nil},
		{"dense with a repeat", []int32{0, 1, 1, 2}, 3, 3, nil},
		{"only negative ids", []int32{-1, -5}, 0, 0, nil},
		{"negative ids ignored", []int32{0, -1, 1}, 2, 2, nil},
		{"a gap", []int32{0, 1, 3}, 4, 3, []int32{0, 1, 3}},
		{"no partition 0", []int32{1, 2}, 3, 2, []int32{1, 2}},
		{"the highest id there is", []int32{0, 2147483647}, 2147483648, 2, []int32{0, 2147483647}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count, distinct, listed := partitionCount(tc.ids)
			if count != tc.count || distinct != tc.distinct {
				t.Errorf("count %d, distinct %d; want %d, %d", count, distinct, tc.count, tc.distinct)
			}
			var got []int32
			if listed != nil {
				got = slices.Sorted(maps.Keys(listed))
			}
			if !reflect.DeepEqual(got, tc.listed) {
				t.Errorf("listed %v, want %v", got, tc.listed)
			}
		})
	}
}

// Each subscription version carries its own fields; sarama zeroes the
// others, and the zeroes must not read as a claim or a generation.
func TestMemberReadsOnlyItsVersionsFields(t *testing.T) {
	rack := "az1"
	full := sarama.ConsumerGroupMemberMetadata{
		Topics: []string{"a"}, UserData: []byte{1},
		OwnedPartitions: []*sarama.OwnedPartition{{Topic: "a", Partitions: []int32{0}}, nil},
		GenerationID:    7, RackID: &rack,
	}
	owned := []assign.TopicPartitions{{Topic: "a", Partitions: []int32{0}}}
	for _, tc := range []struct {
		version int16
		want    assign.Member
	}{
		{0, assign.Member{ID: "m", Topics: []string{"a"}, UserData: []byte{1}, Generation: assign.NoGeneration}},
		{1, assign.Member{ID: "m", Topics: []string{"a"}, UserData: []byte{1}, Generation: assign.NoGeneration, Owned: owned}},
		{2, assign.Member{ID: "m", Topics: []string{"a"}, UserData: []byte{1}, Generation: 7, Owned: owned}},
		{3, assign.Member{ID: "m", Topics: []string{"a"}, UserData: []byte{1}, Generation: 7, Owned: owned, Rack: "az1"}},
		{4, assign.Member{ID: "m", Topics: []string{"a"}, UserData: []byte{1}, Generation: 7, Owned: owned, Rack: "az1"}},
	} {
		meta := full
		meta.Version = tc.version
		if got := member("m", meta); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("v%d: %+v, want %+v", tc.version, got, tc.want)
		}
	}
}

func TestNewInput(t *testing.T) {
	members := map[string]sarama.ConsumerGroupMemberMetadata{
		"m2": {Topics: []string{"b"}}, "m1": {Topics: []string{"a", "b"}},
	}
	in, err := newInput(members, map[string][]int32{"b": {0, 1, 3}, "a": {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if in.group.Protocol != assign.Eager || in.group.Members[0].ID != "m1" || in.group.Members[1].ID != "m2" {
		t.Errorf("group %+v: want EAGER, members sorted by id", in.group)
	}
	want := []assign.Topic{{Name: "a", Partitions: 2}, {Name: "b", Partitions: 4}}
	if !reflect.DeepEqual(in.group.Topics, want) {
		t.Errorf("topics %+v, want %+v", in.group.Topics, want)
	}
	if in.partitions != 5 || len(in.warnings) != 1 || !strings.Contains(in.warnings[0], `"b"`) {
		t.Errorf("partitions %d, warnings %q", in.partitions, in.warnings)
	}

	// The plan keeps only listed partitions, and every member.
	plan := in.plan([]assign.MemberAssignment{
		{ID: "m1", Assigned: []assign.TopicPartitions{{Topic: "a", Partitions: []int32{0, 1}}, {Topic: "b", Partitions: []int32{2}}}},
		{ID: "m2", Assigned: []assign.TopicPartitions{{Topic: "b", Partitions: []int32{0, 1, 3}}}},
	})
	wantPlan := sarama.BalanceStrategyPlan{"m1": {"a": {0, 1}}, "m2": {"b": {0, 1, 3}}}
	if !reflect.DeepEqual(plan, wantPlan) {
		t.Errorf("plan %v, want %v", plan, wantPlan)
	}

	if _, err := newInput(members, map[string][]int32{"a": {0, 1 << 30}}); err == nil || !strings.Contains(err.Error(), "too sparse") {
		t.Errorf("a topic with ids 0 and 2^30: error %v, want too sparse", err)
	}
}

// The plan's lists must not share spare capacity: sarama's
// BalanceStrategyPlan.Add appends to them.
func TestPlanListsAreClipped(t *testing.T) {
	arena := []int32{0, 1, 2, 3}
	in, err := newInput(map[string]sarama.ConsumerGroupMemberMetadata{"x": {Topics: []string{"t"}}, "y": {Topics: []string{"t"}}},
		map[string][]int32{"t": {0, 1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	plan := in.plan([]assign.MemberAssignment{
		{ID: "x", Assigned: []assign.TopicPartitions{{Topic: "t", Partitions: arena[:2]}}},
		{ID: "y", Assigned: []assign.TopicPartitions{{Topic: "t", Partitions: arena[2:]}}},
	})
	plan.Add("x", "t", 9)
	if !reflect.DeepEqual(plan["y"]["t"], []int32{2, 3}) {
		t.Fatalf("appending to x's list changed y's: %v", plan["y"]["t"])
	}
}
