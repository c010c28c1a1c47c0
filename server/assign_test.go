package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func TestListAssignors(t *testing.T) {
	ts := startServer(t, nil)
	resp, err := ts.client.ListAssignors(callCtx(t), &assigndv1.ListAssignorsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := assign.Assignors()
	if len(resp.GetAssignors()) != len(want) {
		t.Fatalf("got %d assignors, want %d", len(resp.GetAssignors()), len(want))
	}
	eager := assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	coop := assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
	byName := map[string][]assigndv1.RebalanceProtocol{}
	for i, info := range resp.GetAssignors() {
		if info.GetName() != want[i].Name() || int(info.GetVersion()) != want[i].Version() {
			t.Errorf("assignor %d = %s@%d, want %s", i, info.GetName(), info.GetVersion(), assign.Ref(want[i]))
		}
		if info.GetVersion() == 1 {
			byName[info.GetName()] = info.GetProtocols()
		}
	}
	for name, want := range map[string][]assigndv1.RebalanceProtocol{
		"cooperative-sticky": {coop, eager},
		"range":              {eager},
		"roundrobin":         {eager},
		"sticky":             {eager},
	} {
		if !slices.Equal(byName[name], want) {
			t.Errorf("%s protocols = %v, want %v", name, byName[name], want)
		}
	}
	// The default selector answers for the standard names.
	if got, want := resp.GetProtocolNames(), []string{"cooperative-sticky", "range", "roundrobin", "sticky"}; !slices.Equal(got, want) {
		t.Errorf("protocol names = %q, want %q", got, want)
	}
}

// TestAssignMatchesEngine sends groups in every member form and checks
// that the response is exactly what the engine computes for the group as
// the server decoded it, that the engine's result passes the shared
// invariant checker, and that every encoded assignment carries the
// member's partitions at the member's subscription version.
func TestAssignMatchesEngine(t *testing.T) {
	ts := startServer(t, nil)
	stickyPrev := wire.AppendStickyUserData(nil, []assign.TopicPartitions{{Topic: "a", Partitions: []int32{0, 1, 2, 3}}}, 4, true)
	tests := []struct {
		name     string
		protocol string
		group    *assign.Group
		forms    []form
		warnings int
	}{{
		name: "range explicit with racks", protocol: "range",
		group: assigntest.NewGroup().Topic("a", 6).Topic("b", 4).
			Racks("a", []string{"r1"}, []string{"r2"}, []string{"r1"}, []string{"r2"}, []string{"r1"}, []string{"r2"}).
			Member("m1", "a", "b").Member("m2", "a", "b").Member("m3", "a").Rack("m1", "r1").Rack("m2", "r2").
			Static("m3", "i-3").Build(),
		forms: []form{explicit},
	}, {
		name: "roundrobin metadata v0", protocol: "roundrobin",
		group: assigntest.NewGroup().Topic("a", 5).Topic("b", 3).
			Member("m1", "a", "b").Member("m2", "b").Member("m3", "a", "b").Build(),
		forms: []form{0},
	}, {
		name: "sticky with previous assignment in user data", protocol: "sticky",
		group: assigntest.NewGroup().Topic("a", 8).Member("m1", "a").Member("m2", "a").
			UserData("m1", stickyPrev).Build(),
		forms: []form{1, 3},
	}, {
		name: "cooperative-sticky revokes and withholds", protocol: "cooperative-sticky",
		group: assigntest.NewGroup().Protocol(assign.Cooperative).Generation(5).Topic("a", 6).Topic("b", 2).
			Member("m1", "a", "b").Member("m2", "a", "b").Member("m3", "a", "b").
			Owns("m1", "a", 0, 1, 2, 3, 4, 5).Owns("m1", "b", 0, 1).Gen("m1", 4).Build(),
		forms: []form{3, 2, explicit},
	}, {
		name: "mixed versions", protocol: "cooperative-sticky",
		group: assigntest.NewGroup().Topic("a", 12).
			Member("m0", "a").Member("m1", "a").Member("m2", "a").Member("m3", "a").Member("m4", "a").
			Owns("m1", "a", 0, 1, 2).Owns("m2", "a", 3, 4, 5).Owns("m3", "a", 6, 7).Owns("m4", "a", 8).
			Gen("m2", 3).Gen("m3", 3).Gen("m4", 3).Rack("m3", "r1").Rack("m4", "r2").Build(),
		forms: []form{0, 1, 2, 3, explicit},
	}, {
		name: "no members", protocol: "cooperative-sticky",
		group: assigntest.NewGroup().Topic("a", 3).Build(),
	}, {
		name: "subscribed topic missing from metadata", protocol: "range",
		group:    assigntest.NewGroup().Topic("a", 2).Member("m1", "a", "gone").Build(),
		warnings: 1,
	}, {
		name: "owned partition that no longer exists", protocol: "cooperative-sticky",
		group: assigntest.NewGroup().Topic("a", 2).Member("m1", "a").Member("m2", "a").
			Owns("m1", "a", 0, 7).Build(),
		forms:    []form{3},
		warnings: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, seen := requestFor(t, tt.group, tt.protocol, tt.forms...)
			resp, err := ts.client.Assign(callCtx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := assign.Lookup(tt.protocol, 0)
			want := assertMatchesEngine(t, req, resp, a, seen)
			if len(resp.GetWarnings()) < tt.warnings {
				t.Errorf("warnings = %q, want at least %d", resp.GetWarnings(), tt.warnings)
			}
			if tt.name == "no members" && (len(resp.GetAssignments()) != 0 || len(resp.GetPending()) != 0) {
				t.Errorf("empty group got %v", resp)
			}
			if err := assigntest.Check(seen, want); err != nil {
				t.Errorf("engine result fails the invariant checker: %v", err)
			}
		})
	}
}

// assertMatchesEngine compares resp with assign.Run(a, seen) and returns
// the engine's result.
func assertMatchesEngine(t tb, req *assigndv1.AssignRequest, resp *assigndv1.AssignResponse, a assign.Assignor, seen *assign.Group) *assign.Result {
	t.Helper()
	want, err := assign.Run(a, seen)
	if err != nil {
		t.Fatalf("engine rejects the group the server accepted: %v", err)
	}
	if resp.GetAssignor() != want.Assignor || int(resp.GetAssignorVersion()) != want.Version ||
		resp.GetRebalanceProtocol() != apiconv.ProtocolToAPI(want.Protocol) || resp.GetFollowupRequired() != want.FollowupRequired {
		t.Errorf("header = %s@%d %s followup=%v, want %s@%d %s followup=%v", resp.GetAssignor(), resp.GetAssignorVersion(),
			resp.GetRebalanceProtocol(), resp.GetFollowupRequired(), want.Assignor, want.Version, want.Protocol, want.FollowupRequired)
	}
	if !strings.HasPrefix(resp.GetPolicy(), "default/") {
		t.Errorf("policy = %q, want default/<revision>", resp.GetPolicy())
	}
	if !equalTPs(tpsIn(resp.GetPending()), want.Pending) {
		t.Errorf("pending = %v, want %v", resp.GetPending(), want.Pending)
	}
	if !slices.Equal(resp.GetWarnings(), want.Warnings) {
		t.Errorf("warnings = %q, want %q", resp.GetWarnings(), want.Warnings)
	}
	if len(resp.GetAssignments()) != len(want.Members) {
		t.Fatalf("%d assignments, want %d", len(resp.GetAssignments()), len(want.Members))
	}
	versions := map[string]int16{}
	for _, m := range req.GetMembers() {
		versions[m.GetMemberId()] = wire.MaxVersion
		if len(m.GetMetadata()) > 0 {
			sub, err := wire.DecodeSubscription(m.GetMetadata())
			if err != nil {
				t.Fatal(err)
			}
			versions[m.GetMemberId()] = min(sub.Version, wire.MaxVersion)
		}
	}
	for i, got := range resp.GetAssignments() {
		w := want.Members[i]
		if got.GetMemberId() != w.ID || !equalTPs(tpsIn(got.GetPartitions()), w.Assigned) ||
			!equalTPs(tpsIn(got.GetRevoked()), w.Revoked) || string(got.GetUserData()) != string(w.UserData) {
			t.Errorf("assignment %d = %v, want %+v", i, got, w)
		}
		dec, err := wire.DecodeAssignment(got.GetAssignment())
		if err != nil {
			t.Fatalf("member %s: assignment bytes: %v", got.GetMemberId(), err)
		}
		if dec.Version != versions[w.ID] {
			t.Errorf("member %s: assignment version %d, want %d", w.ID, dec.Version, versions[w.ID])
		}
		if !equalTPs(dec.Partitions, w.Assigned) {
			t.Errorf("member %s: encoded partitions %v, want %v", w.ID, dec.Partitions, w.Assigned)
		}
	}
	return want
}

// TestAssignProperty checks random groups, with every member form mixed,
// against the engine run in-process.
func TestAssignProperty(t *testing.T) {
	ts := startServer(t, nil)
	ctx := callCtx(t)
	rapid.Check(t, func(rt *rapid.T) {
		name, a := drawStandard(rt)
		proto := assign.Eager
		if name == assign.NameCooperativeSticky {
			proto = rapid.SampledFrom([]assign.RebalanceProtocol{assign.Cooperative, assign.Eager, assign.ProtocolUnspecified}).Draw(rt, "protocol")
		}
		g := assigntest.GroupGen(assigntest.Members(0, 12), assigntest.Topics(1, 4), assigntest.Partitions(0, 16),
			assigntest.Owned(), assigntest.MissingTopics(), assigntest.WithRacks(), assigntest.Protocol(proto)).Draw(rt, "group")
		forms := rapid.SliceOfN(rapid.SampledFrom([]form{explicit, 0, 1, 2, 3}), 1, 5).Draw(rt, "forms")
		req, seen := requestFor(rt, g, name, forms...)
		resp, err := ts.client.Assign(ctx, req)
		if err != nil {
			rt.Fatalf("Assign: %v", err)
		}
		assertMatchesEngine(rt, req, resp, a, seen)
	})
}

// TestAssignEncodedView: ASSIGNMENT_VIEW_ENCODED leaves out exactly the
// decoded lists; everything else, the SyncGroup bytes above all, is what
// the full view returns.
func TestAssignEncodedView(t *testing.T) {
	ts := startServer(t, nil)
	g := assigntest.NewGroup().Topic("a", 8).Topic("b", 8)
	for i := range 4 {
		id := fmt.Sprintf("m%d", i)
		g.Member(id, "a", "b").Owns(id, "a", int32(i), int32(i+4)).Owns(id, "b", int32(2*i), int32(2*i+1))
	}
	g.Member("m4", "a", "b") // joins: partitions move, are revoked and withheld
	req, _ := requestFor(t, g.Protocol(assign.Cooperative).Build(), "cooperative-sticky", explicit, 3)
	full, err := ts.client.Assign(callCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	revoked := 0
	for _, a := range full.GetAssignments() {
		revoked += len(a.GetRevoked())
	}
	if revoked == 0 || len(full.GetPending()) == 0 {
		t.Fatalf("the test group revokes %d partitions and withholds %v: want both", revoked, full.GetPending())
	}
	req.View = assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED
	enc, err := ts.client.Assign(callCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	want := proto.Clone(full).(*assigndv1.AssignResponse)
	for _, a := range want.GetAssignments() {
		a.Partitions, a.Revoked = nil, nil
	}
	if !proto.Equal(enc, want) {
		t.Errorf("encoded view:\n%v\nwant the full view without partitions and revoked:\n%v", enc, want)
	}
	req.View = assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL
	if again, err := ts.client.Assign(callCtx(t), req); err != nil || !proto.Equal(again, full) {
		t.Errorf("ASSIGNMENT_VIEW_FULL differs from the unspecified view (err %v)", err)
	}
}

func TestAssignDefaultRebalanceProtocol(t *testing.T) {
	ts := startServer(t, nil)
	for name, want := range map[string]assigndv1.RebalanceProtocol{
		"cooperative-sticky": assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		"range":              assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
		"roundrobin":         assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
		"sticky":             assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
	} {
		req, _ := requestFor(t, assigntest.NewGroup().Topic("a", 3).Member("m1", "a").Build(), name)
		resp, err := ts.client.Assign(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetRebalanceProtocol() != want {
			t.Errorf("%s: protocol %s, want %s", name, resp.GetRebalanceProtocol(), want)
		}
	}
}

// TestAssignmentVersionFollowsSubscription covers subscription versions
// beyond the newest known one: they are read with the v3 schema and
// answered at v3.
func TestAssignmentVersionFollowsSubscription(t *testing.T) {
	ts := startServer(t, nil)
	v3 := wire.AppendSubscription(nil, &wire.Subscription{Version: 3, Topics: []string{"a"}, Generation: -1})
	v7 := append([]byte{0, 7}, v3[2:]...)
	v7 = append(v7, 0xde, 0xad) // fields of a future version
	for _, tc := range []struct {
		meta []byte
		want int16
	}{
		{wire.AppendSubscription(nil, &wire.Subscription{Version: 0, Topics: []string{"a"}}), 0},
		{wire.AppendSubscription(nil, &wire.Subscription{Version: 1, Topics: []string{"a"}}), 1},
		{wire.AppendSubscription(nil, &wire.Subscription{Version: 2, Topics: []string{"a"}, Generation: -1}), 2},
		{v3, 3},
		{v7, 3},
	} {
		resp, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{
			ProtocolName: "range", Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 2}},
			Members: []*assigndv1.Member{{MemberId: "m", Metadata: tc.meta}},
		})
		if err != nil {
			t.Fatal(err)
		}
		dec, err := wire.DecodeAssignment(resp.GetAssignments()[0].GetAssignment())
		if err != nil {
			t.Fatal(err)
		}
		if dec.Version != tc.want || len(dec.Partitions) != 1 || len(dec.Partitions[0].Partitions) != 2 {
			t.Errorf("subscription %x: assignment v%d %v, want v%d with a-0,1", tc.meta[:2], dec.Version, dec.Partitions, tc.want)
		}
	}
}

// TestAssignDeterministic: replicas and retries must give identical bytes.
func TestAssignDeterministic(t *testing.T) {
	ts := startServer(t, nil)
	g := assigntest.NewGroup().Topic("a", 32).Topic("b", 32).Topic("c", 32)
	for i := range 10 {
		id := fmt.Sprintf("m%02d", i)
		g.Member(id, "a", "b", "c").Owns(id, "a", int32(i), int32(i+10))
	}
	req, _ := requestFor(t, g.Protocol(assign.Cooperative).Build(), "cooperative-sticky", 3)
	var first []byte
	for range 3 {
		resp, err := ts.client.Assign(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Fatal("the same request gave different responses")
		}
	}
}
