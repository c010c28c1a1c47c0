package saramaassign_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/IBM/sarama"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/saramaassign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/shimtest"
)

// stickyGroup is what a sarama leader of an eager sticky group sees after
// one member left and a new one joined: m1 and m2 send back the user data
// of their last assignment (generation 4), m3 is new. m1 runs sarama
// configured for Kafka 3.2 (subscription v2: a generation, which sarama
// leaves at -1 in eager groups), m2 and m3 for the default 2.8 (v1).
func stickyGroup() (map[string]sarama.ConsumerGroupMemberMetadata, map[string][]int32) {
	prev := func(tps ...wire.TopicPartitions) []byte { return wire.AppendStickyUserData(nil, tps, 4, true) }
	members := map[string]sarama.ConsumerGroupMemberMetadata{
		"m1": {Version: 2, Topics: []string{"orders", "audit"}, GenerationID: -1,
			UserData: prev(wire.TopicPartitions{Topic: "orders", Partitions: []int32{0, 1, 2}}, wire.TopicPartitions{Topic: "audit", Partitions: []int32{0}})},
		"m2": {Version: 1, Topics: []string{"orders", "audit"},
			UserData: prev(wire.TopicPartitions{Topic: "orders", Partitions: []int32{3, 4, 5}}, wire.TopicPartitions{Topic: "audit", Partitions: []int32{1}})},
		"m3": {Version: 1, Topics: []string{"orders"}},
	}
	return members, map[string][]int32{"orders": {0, 1, 2, 3, 4, 5}, "audit": {0, 1}}
}

func TestPlanSendsTheGroupAndReturnsAssigndsPlan(t *testing.T) {
	real, p, proxied := shimtest.ServeRecorded(t)
	var reports []saramaassign.Report
	s := saramaassign.Sticky(proxied, saramaassign.WithGroupID("orders-processor"),
		saramaassign.WithLogger(shimtest.Quiet), saramaassign.WithObserver(func(r saramaassign.Report) { reports = append(reports, r) }))
	members, topics := stickyGroup()

	plan, err := s.Plan(members, topics)
	if err != nil {
		t.Fatal(err)
	}
	req := shimtest.OnlyRequest(t, s.Stats(), p)
	want := &assigndv1.AssignRequest{
		GroupId: "orders-processor", ProtocolName: "sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
		View:              assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL,
		Members: []*assigndv1.Member{
			// The explicit form, members sorted by id; v2's generation -1
			// is the absent generation.
			{MemberId: "m1", Topics: []string{"orders", "audit"}, UserData: members["m1"].UserData},
			{MemberId: "m2", Topics: []string{"orders", "audit"}, UserData: members["m2"].UserData},
			{MemberId: "m3", Topics: []string{"orders"}},
		},
		Topics: []*assigndv1.Topic{{Name: "audit", PartitionCount: 2}, {Name: "orders", PartitionCount: 6}},
	}
	if !proto.Equal(req, want) {
		t.Fatalf("request\n%v\nwant\n%v", req, want)
	}

	// The plan is assignd's decoded answer, every member present.
	resp, err := real.Assign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantPlan := sarama.BalanceStrategyPlan{}
	for _, a := range resp.GetAssignments() {
		wantPlan[a.GetMemberId()] = map[string][]int32{}
		for _, tp := range a.GetPartitions() {
			wantPlan[a.GetMemberId()][tp.GetTopic()] = tp.GetPartitions()
		}
	}
	if !reflect.DeepEqual(plan, wantPlan) {
		t.Fatalf("plan %v, assignd answered %v", plan, wantPlan)
	}
	checkPlan(t, members, topics, plan)
	// Sticky: m1 and m2 keep three of their four partitions each and the
	// new m3 takes the other two.
	prev := map[string][]string{"m1": {"orders/0", "orders/1", "orders/2", "audit/0"}, "m2": {"orders/3", "orders/4", "orders/5", "audit/1"}}
	for id, want := range map[string]int{"m1": 3, "m2": 3, "m3": 2} {
		n := 0
		for topic, ps := range plan[id] {
			for _, p := range ps {
				n++
				if id != "m3" && !slices.Contains(prev[id], fmt.Sprintf("%s/%d", topic, p)) {
					t.Errorf("%s got %s/%d, which it did not have", id, topic, p)
				}
			}
		}
		if n != want {
			t.Errorf("%s got %d partitions, want %d: %v", id, n, want, plan)
		}
	}
	if len(reports) != 1 || reports[0].Source != client.SourceService || reports[0].Group != "orders-processor" ||
		reports[0].Members != 3 || reports[0].Partitions != 8 || !reflect.DeepEqual(reports[0].Plan, plan) {
		t.Fatalf("reports %+v", reports)
	}
}

// The versions' own fields reach assignd: owned partitions from v1, the
// generation from v2, the rack from v3.
func TestPlanSendsVersionedFields(t *testing.T) {
	_, p, proxied := shimtest.ServeRecorded(t)
	s := saramaassign.Range(proxied, saramaassign.WithLogger(shimtest.Quiet))
	rack := "az2"
	owned := []*sarama.OwnedPartition{{Topic: "t", Partitions: []int32{1}}}
	members := map[string]sarama.ConsumerGroupMemberMetadata{
		"v0": {Version: 0, Topics: []string{"t"}, OwnedPartitions: owned, GenerationID: 3, RackID: &rack},
		"v1": {Version: 1, Topics: []string{"t"}, OwnedPartitions: owned, GenerationID: 3, RackID: &rack},
		"v2": {Version: 2, Topics: []string{"t"}, GenerationID: 3, RackID: &rack},
		"v3": {Version: 3, Topics: []string{"t"}, GenerationID: 3, RackID: &rack},
	}
	if _, err := s.Plan(members, map[string][]int32{"t": {0, 1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	g3 := int32(3)
	want := []*assigndv1.Member{
		{MemberId: "v0", Topics: []string{"t"}},
		{MemberId: "v1", Topics: []string{"t"}, OwnedPartitions: []*assigndv1.TopicPartitions{{Topic: "t", Partitions: []int32{1}}}},
		{MemberId: "v2", Topics: []string{"t"}, Generation: &g3},
		{MemberId: "v3", Topics: []string{"t"}, Generation: &g3, RackId: &rack},
	}
	for i, m := range p.Requests()[0].GetMembers() {
		if !proto.Equal(m, want[i]) {
			t.Errorf("member %d: %v, want %v", i, m, want[i])
		}
	}
}

func TestFallback(t *testing.T) {
	real := shimtest.NewClient(t, shimtest.ServeAssignd(t))
	shimtest.CheckFallbacks(t, leader{}, real,
		shimtest.Misfit(real, "member missing", func(r *assigndv1.AssignResponse) { r.Assignments = r.Assignments[1:] }),
		shimtest.Misfit(real, "unknown member", func(r *assigndv1.AssignResponse) { r.Assignments[0].MemberId = "stranger" }),
		shimtest.Misfit(real, "member twice", func(r *assigndv1.AssignResponse) { r.Assignments[1] = r.Assignments[0] }),
		shimtest.Misfit(real, "unknown topic", func(r *assigndv1.AssignResponse) { r.Assignments[0].Partitions[0].Topic = "payments" }),
		shimtest.Misfit(real, "partition out of range", func(r *assigndv1.AssignResponse) {
			r.Assignments[2].Partitions = append(r.Assignments[2].Partitions, &assigndv1.TopicPartitions{Topic: "orders", Partitions: []int32{6}})
		}),
		shimtest.Misfit(real, "negative partition", func(r *assigndv1.AssignResponse) {
			r.Assignments[2].Partitions = append(r.Assignments[2].Partitions, &assigndv1.TopicPartitions{Topic: "orders", Partitions: []int32{-1}})
		}),
		shimtest.Misfit(real, "partition given twice", func(r *assigndv1.AssignResponse) {
			r.Assignments[1].Partitions = append(r.Assignments[1].Partitions, r.Assignments[0].Partitions[0])
		}),
		shimtest.Misfit(real, "cooperative plan for an eager group", func(r *assigndv1.AssignResponse) {
			r.RebalanceProtocol = assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
		}),
	)
}

func TestPlanFailsWhenNeitherWayCan(t *testing.T) { shimtest.CheckFailure(t, leader{}) }

// Whatever sarama (or a caller) passes, Plan returns a valid plan or an
// error, and never panics.
func TestPlanOnOddInput(t *testing.T) {
	c := shimtest.NewClient(t, shimtest.ServeAssignd(t))
	rack := "az1"
	for _, tc := range []struct {
		name    string
		members map[string]sarama.ConsumerGroupMemberMetadata
		topics  map[string][]int32
		wantErr bool
	}{
		{"nothing", nil, nil, false},
		{"no topics", map[string]sarama.ConsumerGroupMemberMetadata{"a": {Topics: []string{"t"}}}, nil, false},
		{"no members", nil, map[string][]int32{"t": {0, 1}}, false},
		{"subscribed topic without metadata", map[string]sarama.ConsumerGroupMemberMetadata{"a": {Topics: []string{"t", "u"}}},
			map[string][]int32{"t": {0, 1}}, false},
		{"topic listed twice in a subscription", map[string]sarama.ConsumerGroupMemberMetadata{"a": {Topics: []string{"t", "t"}}, "b": {Topics: []string{"t"}}},
			map[string][]int32{"t": {0, 1, 2}}, false},
		{"nil owned entries and a v3 without rack", map[string]sarama.ConsumerGroupMemberMetadata{
			"a": {Version: 3, Topics: []string{"t"}, OwnedPartitions: []*sarama.OwnedPartition{nil}},
			"b": {Version: 3, Topics: []string{"t"}, RackID: &rack}}, map[string][]int32{"t": {0, 1, 2}}, false},
		{"owned partitions of unknown topics and partitions", map[string]sarama.ConsumerGroupMemberMetadata{
			"a": {Version: 1, Topics: []string{"t"}, OwnedPartitions: []*sarama.OwnedPartition{{Topic: "x", Partitions: []int32{0}}, {Topic: "t", Partitions: []int32{7, -1}}}}},
			map[string][]int32{"t": {0, 1}}, false},
		{"garbage sticky user data", map[string]sarama.ConsumerGroupMemberMetadata{"a": {Topics: []string{"t"}, UserData: []byte{0, 0, 0, 9, 1}}},
			map[string][]int32{"t": {0, 1}}, false},
		{"partition ids with a gap, a repeat and a negative", map[string]sarama.ConsumerGroupMemberMetadata{"a": {Topics: []string{"t"}}, "b": {Topics: []string{"t"}}},
			map[string][]int32{"t": {3, 0, 0, -2, 5, 1}}, false},
		{"partition ids far too sparse", map[string]sarama.ConsumerGroupMemberMetadata{"a": {Topics: []string{"t"}}},
			map[string][]int32{"t": {0, 2147483647}}, true},
		{"invalid UTF-8 in a topic name", map[string]sarama.ConsumerGroupMemberMetadata{"a\xff": {Topics: []string{"t\xfe"}}},
			map[string][]int32{"t\xfe": {0}}, true},
		{"invalid UTF-8 in a member id", map[string]sarama.ConsumerGroupMemberMetadata{"a\xff": {Topics: []string{"t"}}},
			map[string][]int32{"t": {0}}, false},
		{"empty member id", map[string]sarama.ConsumerGroupMemberMetadata{"": {Topics: []string{"t"}}},
			map[string][]int32{"t": {0}}, true},
	} {
		for _, name := range []string{"range", "roundrobin", "sticky"} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				s, err := saramaassign.New(c, name, saramaassign.WithLogger(shimtest.Quiet))
				if err != nil {
					t.Fatal(err)
				}
				plan, err := s.Plan(tc.members, tc.topics)
				if (err != nil) != tc.wantErr {
					t.Fatalf("error %v, want error %v", err, tc.wantErr)
				}
				if err == nil {
					checkPlan(t, tc.members, tc.topics, plan)
				}
			})
		}
	}
}
