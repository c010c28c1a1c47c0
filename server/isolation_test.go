package server_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/request"
)

// TestMemoryBudgetRefusal: a request whose estimate could never fit in
// the budget is refused at once, naming the budget, with the ErrorInfo of
// every limit; one that fits is served.
func TestMemoryBudgetRefusal(t *testing.T) {
	const budget = 64 << 20
	ts := startServer(t, nil, server.WithMemoryBudget(budget))
	huge := &assigndv1.AssignRequest{GroupId: "huge", ProtocolName: "range",
		Topics:  []*assigndv1.Topic{{Name: "t", PartitionCount: 2_000_000}},
		Members: []*assigndv1.Member{{MemberId: "m", Topics: []string{"t"}}}}
	_, err := ts.client.Assign(callCtx(t), huge)
	code, _, info := statusDetails(t, err)
	if code != codes.ResourceExhausted || info.GetReason() != assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED.String() {
		t.Fatalf("huge request: %v, want RESOURCE_EXHAUSTED with reason LIMIT_EXCEEDED", err)
	}
	if md := info.GetMetadata(); md["limit"] != "memory_bytes" || md["max"] != fmt.Sprint(budget-budget/8) ||
		md["got"] != fmt.Sprint(request.EstimateBytes(huge, 0)) {
		t.Errorf("metadata %v", md)
	}
	if !strings.Contains(status.Convert(err).Message(), "--memory-budget") {
		t.Errorf("message %q does not name --memory-budget", status.Convert(err).Message())
	}
	huge.Topics[0].PartitionCount = 100_000
	if _, err := ts.client.Assign(callCtx(t), huge); err != nil {
		t.Errorf("a request that fits: %v", err)
	}
}

// TestRefusedCallsReported: requests gRPC refuses before assignd's
// handler (over the receive limit, not valid protobuf) are logged as
// "refused call" and counted in assignd_rpc_refused_total by method and
// code.
func TestRefusedCallsReported(t *testing.T) {
	tel := newTelemetry(t)
	ts := startServer(t, nil, server.WithMaxRecvBytes(1024), server.WithMeterProvider(tel.MeterProvider()))
	big := smallRequest(0)
	big.GroupId = strings.Repeat("g", 2048)
	if _, err := ts.client.Assign(callCtx(t), big); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("oversize request: %v, want RESOURCE_EXHAUSTED", err)
	}
	var out assigndv1.AssignResponse
	err := ts.conn.Invoke(callCtx(t), assigndv1.AssignmentService_Assign_FullMethodName, []byte{0x0a, 0xff, 0xff}, &out, grpc.ForceCodec(rawCodec{}))
	if status.Code(err) != codes.Internal {
		t.Fatalf("malformed request: %v, want INTERNAL (from grpc-go)", err)
	}
	if testing.Verbose() {
		t.Logf("malformed request: %v", err)
	}
	if _, err := ts.client.Assign(callCtx(t), smallRequest(1)); err != nil {
		t.Fatalf("a good call: %v", err)
	}

	// gRPC reports a call's end to stats handlers after it wrote the
	// status: the lines may come a moment after the client's answer.
	var refused []map[string]any
	for deadline := time.Now().Add(5 * time.Second); len(refused) < 2 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		refused = ts.logs.lines(t, "refused call")
	}
	var codesSeen []string
	for _, l := range refused {
		if l["grpc.method"] != assigndv1.AssignmentService_Assign_FullMethodName {
			t.Errorf("refused call line %v: wrong method", l)
		}
		codesSeen = append(codesSeen, fmt.Sprint(l["grpc.code"]))
	}
	slices.Sort(codesSeen)
	if !slices.Equal(codesSeen, []string{"Internal", "ResourceExhausted"}) {
		t.Errorf("refused call lines with codes %v, want Internal and ResourceExhausted:\n%s", codesSeen, ts.logs)
	}
	if n := len(ts.logs.lines(t, "finished call")); n != 1 {
		t.Errorf("%d finished call lines, want 1 (the good call)", n)
	}
	text := scrape(t, ts, tel)
	for _, code := range []string{"ResourceExhausted", "Internal"} {
		if !regexp.MustCompile(`assignd_rpc_refused_total\{.*code="` + code + `".*method="/assignd.v1.AssignmentService/Assign".*\} 1`).MatchString(text) {
			t.Errorf("assignd_rpc_refused_total has no %s count of 1:\n%s", code, text)
		}
	}
}

// rawCodec sends bytes as they are.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	if b, ok := v.([]byte); ok {
		return b, nil
	}
	return proto.Marshal(v.(proto.Message))
}
func (rawCodec) Unmarshal(data []byte, v any) error { return proto.Unmarshal(data, v.(proto.Message)) }
func (rawCodec) Name() string                       { return "proto" }

// TestCallerStringsClippedInLogs: a 100 KB group id is clipped in the call
// log line, whether the call succeeds or fails.
func TestCallerStringsClippedInLogs(t *testing.T) {
	ts := startServer(t, nil)
	long := strings.Repeat("é", 50_000)
	ok := smallRequest(0)
	ok.GroupId = long
	if _, err := ts.client.Assign(callCtx(t), ok); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{GroupId: long}); err == nil {
		t.Fatal("want an error for a missing protocol name")
	}
	lines := ts.logs.lines(t, "finished call")
	if len(lines) != 2 {
		t.Fatalf("%d call lines, want 2", len(lines))
	}
	for _, l := range lines {
		g, _ := l["group"].(string)
		if len(g) > 200 || !strings.HasPrefix(g, "éé") || !strings.HasSuffix(g, "...") {
			t.Errorf("group logged as %d bytes: %.40q", len(g), g)
		}
	}
	if n := len(ts.logs.String()); n > 8<<10 {
		t.Errorf("two call lines took %d bytes", n)
	}
}

// TestSmallCallsNotStarved: while pathological calls (groups of 1,000,000
// partitions, each computing for at least a second and a half) keep the large-call
// slot busy and queue behind it, ordinary 10-member groups with a 2 s
// deadline all succeed, with p99 well under their bound.
func TestSmallCallsNotStarved(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an attack of a few seconds; skipped with -short")
	}
	const (
		attackers = 3
		holdFor   = 1500 * time.Millisecond
	)
	// A pathological call runs the real engine again and again for
	// holdFor: a huge group whose run takes that long, whatever the
	// engine's speed on this machine.
	run := func(ctx context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
		if len(g.Topics) != 1 || g.Topics[0].Partitions < 1_000_000 {
			return assign.Run(a, g, opts...)
		}
		for until := time.Now().Add(holdFor); ; {
			res, err := assign.Run(a, g, opts...)
			if err != nil || !time.Now().Before(until) {
				return res, err
			}
		}
	}
	ts := startServer(t, nil, server.WithRunFunc(run), server.WithMaxConcurrentAssigns(2), server.WithMemoryBudget(2<<30))
	huge := &assigndv1.AssignRequest{GroupId: "huge", ProtocolName: "range",
		Topics: []*assigndv1.Topic{{Name: "t", PartitionCount: 1_000_000}}}
	for m := range 1000 {
		huge.Members = append(huge.Members, &assigndv1.Member{MemberId: fmt.Sprintf("m%04d", m), Topics: []string{"t"}})
	}

	var attacking atomic.Int32
	var wg sync.WaitGroup
	for range attackers {
		wg.Add(1)
		attacking.Add(1)
		go func() {
			defer wg.Done()
			defer attacking.Add(-1)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := ts.client.Assign(ctx, huge); err != nil {
				t.Errorf("pathological call: %v", err)
			}
		}()
	}
	// Small calls from two leaders, one after the other, while the attack
	// lasts (at most 200 each).
	var mu sync.Mutex
	var during []time.Duration
	var failed []error
	var smallWG sync.WaitGroup
	for leader := range 2 {
		smallWG.Add(1)
		go func() {
			defer smallWG.Done()
			for i := 0; i < 200 && attacking.Load() > 0; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				start := time.Now()
				_, err := ts.client.Assign(ctx, smallRequest(leader*1000+i))
				took := time.Since(start)
				cancel()
				mu.Lock()
				if err != nil {
					failed = append(failed, err)
				} else if attacking.Load() > 0 {
					during = append(during, took)
				}
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	smallWG.Wait()
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d small calls failed, first: %v", len(failed), failed[0])
	}
	if len(during) < 20 {
		t.Fatalf("only %d small calls ran during the attack; the test measured nothing", len(during))
	}
	slices.Sort(during)
	p50, p99 := during[len(during)/2], during[(len(during)*99+99)/100-1]
	t.Logf("%d small calls during the attack: p50 %s, p99 %s, max %s", len(during), p50, p99, during[len(during)-1])
	if p99 >= time.Second {
		t.Errorf("small-call p99 %s under attack, want well under 1 s", p99)
	}
}
