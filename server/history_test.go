package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
)

// historyRequest is an explicit-form request of two members over one
// topic of 6 partitions; owned gives member a's owned partitions.
func historyRequest(group string, gen int32, name string, owned ...int32) *assigndv1.AssignRequest {
	a := &assigndv1.Member{MemberId: "a", Topics: []string{"orders"}, RackId: ptr("rack-1"), GroupInstanceId: ptr("pod-a")}
	if len(owned) > 0 {
		a.OwnedPartitions = []*assigndv1.TopicPartitions{{Topic: "orders", Partitions: owned}}
	}
	return &assigndv1.AssignRequest{
		GroupId: group, GenerationId: gen, ProtocolName: name, LeaderId: "a",
		Members: []*assigndv1.Member{a, {MemberId: "b", Topics: []string{"orders"}}},
		Topics:  []*assigndv1.Topic{{Name: "orders", PartitionCount: 6}},
	}
}

func ptr[T any](v T) *T { return &v }

// waitGroup polls GetGroup until the group has want decisions: a Decision
// is recorded once the response is written, so just after the client has
// it.
func waitGroup(t *testing.T, hc assigndv1.GroupHistoryServiceClient, group string, want int) *assigndv1.GetGroupResponse {
	t.Helper()
	for range 200 {
		resp, err := hc.GetGroup(callCtx(t), &assigndv1.GetGroupRequest{GroupId: group})
		if err == nil && len(resp.GetDecisions()) >= want {
			return resp
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("group %q never had %d decisions", group, want)
	return nil
}

func TestHistoryRecordsEveryAnsweredAssign(t *testing.T) {
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, nil, server.WithHistory(h))
	hc := assigndv1.NewGroupHistoryServiceClient(ts.conn)
	ctx := callCtx(t)

	// payments: a cooperative rebalance (a owns everything, b joins: a
	// revokes 3, which are withheld), its follow-up, then a gap.
	calls := []*assigndv1.AssignRequest{
		historyRequest("payments", 4, "cooperative-sticky", 0, 1, 2, 3, 4, 5),
		historyRequest("payments", 5, "cooperative-sticky", 0, 1, 2),
		historyRequest("payments", 7, "cooperative-sticky", 0, 1, 2),
		historyRequest("billing", 1, "range"),
	}
	for _, req := range calls {
		if _, err := ts.client.Assign(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	// A refused call records nothing.
	if _, err := ts.client.Assign(ctx, historyRequest("refused", 1, "no-such-name")); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("unknown name: %v", err)
	}

	resp := waitGroup(t, hc, "payments", 3)
	ds := resp.GetDecisions()
	if len(ds) != 3 || ds[0].GetGenerationId() != 7 || ds[2].GetGenerationId() != 4 {
		t.Fatalf("decisions %v; want generations 7, 5, 4", ds)
	}
	first := ds[2]
	if first.GetRevoked() != 3 || first.GetWithheld() != 3 || !first.GetFollowupRequired() || countTPs(first.GetRevokedPartitions()) != 3 ||
		countTPs(first.GetWithheldPartitions()) != 3 {
		t.Errorf("first decision: revoked %d (%v), withheld %d (%v), follow-up %t; want 3, 3, true",
			first.GetRevoked(), first.GetRevokedPartitions(), first.GetWithheld(), first.GetWithheldPartitions(), first.GetFollowupRequired())
	}
	if !strings.HasPrefix(first.GetAssignor(), "cooperative-sticky@") || first.GetPolicyRule() != "default" || first.GetPolicyRevision() == "" ||
		first.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE || first.GetLeaderId() != "a" {
		t.Errorf("first decision: assignor %q, policy %q/%q, protocol %s, leader %q",
			first.GetAssignor(), first.GetPolicyRule(), first.GetPolicyRevision(), first.GetRebalanceProtocol(), first.GetLeaderId())
	}
	if ms := first.GetMembers(); len(ms) != 2 || ms[0].GetMemberId() != "a" || ms[0].GetOwned() != 6 || ms[0].GetAssigned() != 3 ||
		ms[0].GetRack() != "rack-1" || ms[0].GetGroupInstanceId() != "pod-a" || ms[1].GetOwned() != 0 || first.GetMemberCount() != 2 {
		t.Errorf("members %v; want a (pod-a, rack-1) owning 6 assigned 3, and b", ms)
	}
	if first.GetCaller() != nil {
		t.Errorf("caller %v on a plaintext call; want none (unauthenticated)", first.GetCaller())
	}
	if !bytes.Contains([]byte(first.GetUserAgent()), []byte("grpc-go/")) {
		t.Errorf("user agent %q; want the client's grpc-go user agent", first.GetUserAgent())
	}
	if len(first.GetInputDigest()) != 32 || bytes.Equal(first.GetInputDigest(), ds[1].GetInputDigest()) {
		t.Errorf("digests %x and %x; want distinct SHA-256 digests", first.GetInputDigest(), ds[1].GetInputDigest())
	}
	if first.GetCallTime().AsDuration() < first.GetEngineTime().AsDuration() || first.GetEngineTime().AsDuration() <= 0 {
		t.Errorf("call time %s, engine time %s; want 0 < engine ≤ call", first.GetCallTime().AsDuration(), first.GetEngineTime().AsDuration())
	}
	if sig := resp.GetSummary().GetSignals(); len(sig) != 1 || sig[0].GetSignal() != assigndv1.GroupSignal_GROUP_SIGNAL_GENERATION_GAP {
		t.Errorf("payments signals %v; want the generation gap (6 never seen)", sig)
	}

	waitGroup(t, hc, "billing", 1)
	list, err := hc.ListGroups(ctx, &assigndv1.ListGroupsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if list.GetTotalGroups() != 2 || len(list.GetGroups()) != 2 || list.GetGroups()[0].GetGroupId() != "billing" {
		t.Fatalf("ListGroups: %v; want billing and payments (the refused call records nothing)", list)
	}
	eager, err := hc.ListGroups(ctx, &assigndv1.ListGroupsRequest{Signal: assigndv1.GroupSignal_GROUP_SIGNAL_EAGER_ONLY_PROTOCOL})
	if err != nil || len(eager.GetGroups()) != 1 || eager.GetGroups()[0].GetGroupId() != "billing" {
		t.Errorf("eager-only groups: %v, %v; want billing", eager, err)
	}
	page, err := hc.ListGroups(ctx, &assigndv1.ListGroupsRequest{PageSize: 1})
	if err != nil || len(page.GetGroups()) != 1 || page.GetNextPageToken() == "" {
		t.Fatalf("first page of 1: %v, %v", page, err)
	}
	page, err = hc.ListGroups(ctx, &assigndv1.ListGroupsRequest{PageSize: 1, PageToken: page.GetNextPageToken()})
	if err != nil || len(page.GetGroups()) != 1 || page.GetGroups()[0].GetGroupId() != "payments" || page.GetNextPageToken() != "" {
		t.Errorf("second page: %v, %v; want payments, last page", page, err)
	}
	if _, err := hc.ListGroups(ctx, &assigndv1.ListGroupsRequest{PageToken: "%%"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("ListGroups with a made-up page token: %v; want INVALID_ARGUMENT", err)
	}
	if _, err := hc.GetGroup(ctx, &assigndv1.GetGroupRequest{GroupId: "refused"}); status.Code(err) != codes.NotFound {
		t.Errorf("GetGroup of an unknown group: %v; want NOT_FOUND", err)
	}
}

func TestHistoryUnimplementedWithout(t *testing.T) {
	ts := startServer(t, nil)
	_, err := assigndv1.NewGroupHistoryServiceClient(ts.conn).ListGroups(callCtx(t), &assigndv1.ListGroupsRequest{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("ListGroups without a history: %v; want UNIMPLEMENTED", err)
	}
}

func countTPs(tps []*assigndv1.TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += len(tp.GetPartitions())
	}
	return n
}

func TestHistoryMetrics(t *testing.T) {
	tel := newTelemetry(t)
	h, _ := history.New()
	ts := startServer(t, nil, server.WithHistory(h), server.WithMeterProvider(tel.MeterProvider()))
	ops := serveOps(t, ts, tel)
	for _, req := range []*assigndv1.AssignRequest{historyRequest("a", 1, "range"), historyRequest("b", 1, "roundrobin"), historyRequest("c", 1, "cooperative-sticky")} {
		if _, err := ts.client.Assign(callCtx(t), req); err != nil {
			t.Fatal(err)
		}
	}
	waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), "c", 1)
	waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), "a", 1)
	waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), "b", 1)
	body := checkMetrics(t, ops.URL+"/metrics",
		`(?m)^assignd_history_groups(\{[^}]*\})? 3$`,
		`(?m)^assignd_history_groups_signal\{[^}]*signal="GROUP_SIGNAL_EAGER_ONLY_PROTOCOL"[^}]*\} 2$`,
		`(?m)^assignd_history_groups_signal\{[^}]*signal="GROUP_SIGNAL_REBALANCE_STORM"[^}]*\} 0$`,
	)
	if regexp.MustCompile(`assignd_history[^\n]*group_id`).Match(body) {
		t.Errorf("a history metric is labelled by group:\n%s", body)
	}

	// The console is on the same listener.
	code, body := get(t, ops.URL+"/console/group?id=a")
	if code != http.StatusOK || !bytes.Contains(body, []byte("eager-only-protocol")) || !bytes.Contains(body, []byte(`<svg id="timeline"`)) {
		t.Errorf("/console/group?id=a: %d\n%s", code, body)
	}
}

// With mTLS, the decision carries the caller's verified subject, and the
// history RPCs are behind the same authentication as Assign.
func TestHistoryCallerIdentity(t *testing.T) {
	h, _ := history.New()
	ca, dial := startMutualTLS(t, selection.Default(), server.WithHistory(h))
	conn := dial(ca.Client(t, "leader-a", "payments"))
	defer conn.Close()
	if _, err := assigndv1.NewAssignmentServiceClient(conn).Assign(callCtx(t), historyRequest("orders", 1, "range")); err != nil {
		t.Fatal(err)
	}
	d := waitGroup(t, assigndv1.NewGroupHistoryServiceClient(conn), "orders", 1).GetDecisions()[0]
	if d.GetCaller().GetSubject() != "CN=leader-a,O=payments" || d.GetCaller().GetCommonName() != "leader-a" {
		t.Errorf("caller %v; want the verified client certificate", d.GetCaller())
	}
	anon := dial()
	defer anon.Close()
	if _, err := assigndv1.NewGroupHistoryServiceClient(anon).ListGroups(callCtx(t), &assigndv1.ListGroupsRequest{}); err == nil {
		t.Error("a client without a certificate read the history")
	}
}

// A huge group's decision stays small: the member and partition lists are
// capped, the counts stay complete.
func TestHistoryDecisionCaps(t *testing.T) {
	h, _ := history.New()
	ts := startServer(t, nil, server.WithHistory(h))
	req := &assigndv1.AssignRequest{GroupId: "big", GenerationId: 2, ProtocolName: "cooperative-sticky",
		Topics: []*assigndv1.Topic{{Name: "t", PartitionCount: 400}}}
	all := make([]int32, 400)
	for i := range all {
		all[i] = int32(i)
	}
	for i := range 40 {
		m := &assigndv1.Member{MemberId: fmt.Sprintf("m%02d", i), Topics: []string{"t"}}
		if i == 0 {
			m.OwnedPartitions = []*assigndv1.TopicPartitions{{Topic: "t", Partitions: all}}
		}
		req.Members = append(req.Members, m)
	}
	if _, err := ts.client.Assign(callCtx(t), req); err != nil {
		t.Fatal(err)
	}
	d := waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), "big", 1).GetDecisions()[0]
	if d.GetMemberCount() != 40 || len(d.GetMembers()) != 32 || d.GetMembers()[0].GetOwned() != 400 {
		t.Errorf("member_count %d, %d members listed, first owns %d; want 40, 32, 400", d.GetMemberCount(), len(d.GetMembers()), d.GetMembers()[0].GetOwned())
	}
	if d.GetRevoked() != 390 || countTPs(d.GetRevokedPartitions()) != 64 || d.GetWithheld() != 390 || countTPs(d.GetWithheldPartitions()) != 64 {
		t.Errorf("revoked %d (%d listed), withheld %d (%d listed); want 390 (64), 390 (64)",
			d.GetRevoked(), countTPs(d.GetRevokedPartitions()), d.GetWithheld(), countTPs(d.GetWithheldPartitions()))
	}
}
