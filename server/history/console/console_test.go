package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/console"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/testbed/contains"
)

func get(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// getOK is get of the console's page what, which must be served.
func getOK(t *testing.T, base, path, what string) string {
	t.Helper()
	code, page := get(t, base, path)
	if code != http.StatusOK {
		t.Fatalf("%s: %d", what, code)
	}
	return page
}

func TestConsole(t *testing.T) {
	h, _ := history.New()
	now := time.Now()
	h.Record(&assigndv1.Decision{
		Time: timestamppb.New(now.Add(-time.Minute)), GroupId: "payments<eu>", GenerationId: 4, ProtocolName: "cooperative-sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE, Assignor: "cooperative-sticky@1", PolicyRule: "default",
		PolicyRevision: "abc123", MemberCount: 2, Partitions: 3, Moved: 3, Revoked: 3, Withheld: 3, FollowupRequired: true,
		RevokedPartitions: []*assigndv1.TopicPartitions{{Topic: "orders", Partitions: []int32{3, 4, 5}}},
		Members:           []*assigndv1.DecisionMember{{MemberId: "consumer-a", Rack: "rack-1", Owned: 6, Assigned: 3}, {MemberId: "consumer-b"}},
		EngineTime:        durationpb.New(40 * time.Microsecond), UserAgent: "assignd-go/v0.1.0 grpc-go/1.72.0",
	})
	h.Record(&assigndv1.Decision{
		Time: timestamppb.New(now), GroupId: "payments<eu>", GenerationId: 6, ProtocolName: "cooperative-sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE, Assignor: "cooperative-sticky@1", PolicyRule: "default",
		MemberCount: 2, Partitions: 6, Topics: []string{"orders", "refunds"}, CallerBinding: "payments",
		Caller:  &assigndv1.CallerIdentity{Subject: "CN=payments-leader,O=payments", CommonName: "payments-leader"},
		Members: []*assigndv1.DecisionMember{{MemberId: "consumer-a", Owned: 3, Assigned: 3, AssignedByTopic: []int32{3, 0}}, {MemberId: "consumer-b", Assigned: 3, AssignedByTopic: []int32{1, 2}}},
	})
	h.Record(&assigndv1.Decision{Time: timestamppb.New(now), GroupId: "payments<eu>", GenerationId: 6, Shadow: true, PolicyRule: "default",
		Assignor: "cooperative-sticky@2", Moved: 4, Imbalance: 1, FollowupRequired: true, EngineTime: durationpb.New(time.Millisecond)})
	h.Record(&assigndv1.Decision{Time: timestamppb.New(now), GroupId: "billing", GenerationId: 1, ProtocolName: "range",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER, Assignor: "range@1", PolicyRule: "default"})
	srv := httptest.NewServer(http.StripPrefix("/console", console.Handler(h, console.WithExplainer(policy.Default()))))
	defer srv.Close()

	page := getOK(t, srv.URL, "/console/", "fleet page")
	contains.All(t, "fleet page", page,
		"2 shown of 2 groups remembered",
		`<a href="group?id=payments%3Ceu%3E">payments&lt;eu&gt;</a>`, // escaped, never raw
		"cooperative-sticky (COOPERATIVE)", "range (EAGER)",
		`<span class="signal" title="`, ">generation-gap</span>", ">eager-only-protocol</span>",
		`<td class="n rebalances">2</td>`, // both decisions are within the hour
		`<a class="signal" href="?signal=generation-gap">generation-gap: 1</a>`,
	)
	for _, banned := range []string{"<script", "http://", "https://"} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), banned) {
			t.Errorf("fleet page contains %q: no script and no external asset", banned)
		}
	}
	if _, filtered := get(t, srv.URL, "/console/?signal=eager-only-protocol"); !strings.Contains(filtered, "1 shown of 2") || strings.Contains(filtered, "payments") {
		t.Errorf("filtered fleet page:\n%s", filtered)
	}
	if code, _ := get(t, srv.URL, "/console/?signal=nope"); code != http.StatusBadRequest {
		t.Errorf("unknown signal: %d, want 400", code)
	}

	page = getOK(t, srv.URL, "/console/group?id=payments%3Ceu%3E", "group page")
	contains.All(t, "group page", page,
		"Group <code>payments&lt;eu&gt;</code>",
		"generation 5 never reached assignd",
		`<svg id="timeline"`, "<title>generation 4: 3 moved, 3 withheld, 3 revoked</title>",
		`<g class="gap"><title>generation 5 never reached assignd</title>`,                       // between the bars of 4 and 6
		`<tr><td>consumer-a</td><td></td><td></td><td class="n">3</td><td class="n">3</td></tr>`, // the latest decision's members
		"revoked orders[3,4,5]", "required", "unauthenticated", "assignd-go/v0.1.0",
		// The heatmap: members x topics of the latest decision.
		`<tr><th>Member</th><th>orders</th><th>refunds</th><th>All</th></tr>`,
		`<tr><td>consumer-b</td><td class="n heat" style="background-color: rgba(59, 111, 182, 0.4)">1</td><td class="n heat" style="background-color: rgba(59, 111, 182, 0.6)">2</td><td class="n">3</td></tr>`,
		// The policy: as recorded, as serving now, and the shadow.
		"caller CN=payments-leader,O=payments, allowed by binding <code>payments</code>",
		"Serving now</dt><dd>rule <code>default</code>", "cooperative-sticky@1, rack_aware=true",
		"Shadow comparison, generation 6",
		`<td>cooperative-sticky@2</td><td class="n">4</td><td class="n">0</td><td class="n">1</td><td>required</td>`,
		`<tr><td>answered</td><td>cooperative-sticky@1</td><td class="n">0</td>`,
	)
	decisions := page[strings.Index(page, `<table id="decisions">`):]
	if g6, g4 := strings.Index(decisions, `<td class="n">6</td>`), strings.Index(decisions, `<td class="n">4</td>`); g6 < 0 || g4 < g6 {
		t.Errorf("decisions are not listed newest first (generation 6 at %d, 4 at %d)", g6, g4)
	}
	if code, page := get(t, srv.URL, "/console/group?id=nobody"); code != http.StatusNotFound || !strings.Contains(page, "nobody") {
		t.Errorf("unknown group: %d\n%s", code, page)
	}
}

// TestConsoleShowsStreamsGroups: a streams group's decisions are listed
// as such, with its task figures, and the policy is explained for it as a
// streams group.
func TestConsoleShowsStreamsGroups(t *testing.T) {
	h, _ := history.New()
	h.Record(&assigndv1.Decision{Time: timestamppb.Now(), GroupId: "wordcount", GroupType: assigndv1.GroupType_GROUP_TYPE_STREAMS,
		Assignor: "sticky@1", PolicyRule: "default", MemberCount: 2, Tasks: 8, ActiveMoved: 3, Processes: 2,
		EngineTime: durationpb.New(time.Millisecond), CallTime: durationpb.New(time.Millisecond)})
	srv := httptest.NewServer(http.StripPrefix("/console", console.Handler(h, console.WithExplainer(policy.Default()))))
	defer srv.Close()
	_, page := get(t, srv.URL, "/console/")
	contains.All(t, "fleet page", page, "<td>streams (tasks)</td>")
	_, page = get(t, srv.URL, "/console/group?id=wordcount")
	contains.All(t, "group page", page, "streams (tasks) ·", "<b>tasks</b>: 8", "<b>active moved</b>: 3", "sticky@1")
	if strings.Contains(page, "protocol name is empty") {
		t.Errorf("the group page explains a streams group as a consumer group:\n%s", page)
	}
}
