package faults

import (
	"context"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// calls records every Assign call the leaders make, as the leaders see
// it: which replica each attempt reached (gRPC retries UNAVAILABLE on
// another), how it ended, and how long the call took.
type calls struct {
	replicaOf map[string]string // address → replica name

	mu  sync.Mutex
	all []*call
}

type call struct {
	group    string
	start    time.Time
	took     time.Duration
	code     codes.Code
	mu       sync.Mutex
	attempts []*attempt
}

type attempt struct {
	replica string // "" when the attempt reached no replica
	code    codes.Code
}

type callKey struct{}
type attemptKey struct{}

func newCalls(replicaOf map[string]string) *calls { return &calls{replicaOf: replicaOf} }

// newClient is a Go client over every replica address, round robin (the
// client's default service config), recording its calls.
func (cs *calls) newClient(addrs []string, opts ...client.Option) (*client.Client, error) {
	r := manual.NewBuilderWithScheme("faults")
	var as []resolver.Address
	for _, a := range addrs {
		as = append(as, resolver.Address{Addr: a})
	}
	r.InitialState(resolver.State{Addresses: as})
	return client.New("faults:///assignd", append(opts, client.WithDialOptions(
		grpc.WithResolvers(r),
		grpc.WithChainUnaryInterceptor(cs.intercept),
		grpc.WithStatsHandler(cs),
	))...)
}

func (cs *calls) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	ar, ok := req.(*assigndv1.AssignRequest)
	if !ok {
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	c := &call{group: ar.GetGroupId(), start: time.Now()}
	err := invoker(context.WithValue(ctx, callKey{}, c), method, req, reply, cc, opts...)
	c.took, c.code = time.Since(c.start), status.Code(err)
	cs.mu.Lock()
	cs.all = append(cs.all, c)
	cs.mu.Unlock()
	return err
}

// TagRPC starts an attempt of the call in ctx.
func (cs *calls) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok {
		return ctx
	}
	a := &attempt{}
	c.mu.Lock()
	c.attempts = append(c.attempts, a)
	c.mu.Unlock()
	return context.WithValue(ctx, attemptKey{}, &struct {
		*call
		*attempt
	}{c, a})
}

// HandleRPC notes which replica an attempt reached and how it ended.
func (cs *calls) HandleRPC(ctx context.Context, s stats.RPCStats) {
	ca, ok := ctx.Value(attemptKey{}).(*struct {
		*call
		*attempt
	})
	if !ok {
		return
	}
	ca.call.mu.Lock()
	defer ca.call.mu.Unlock()
	switch s := s.(type) {
	case *stats.OutHeader:
		if s.RemoteAddr != nil {
			ca.attempt.replica = cs.replicaOf[s.RemoteAddr.String()]
		}
	case *stats.End:
		ca.attempt.code = status.Code(s.Error)
	}
}

func (cs *calls) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (cs *calls) HandleConn(context.Context, stats.ConnStats)                       {}

// since returns the calls that started at or after t, in start order.
func (cs *calls) since(t time.Time) []*call {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var out []*call
	for _, c := range cs.all {
		if !c.start.Before(t) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

// servedBy is the replica that answered the call, "" if none did.
func (c *call) servedBy() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.code != codes.OK || len(c.attempts) == 0 {
		return ""
	}
	return c.attempts[len(c.attempts)-1].replica
}

// firstReplica is the replica the call's first attempt reached.
func (c *call) firstReplica() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.attempts) == 0 {
		return ""
	}
	return c.attempts[0].replica
}

func (c *call) tries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.attempts)
}

// callSummary is what a set of calls cost the leaders.
type callSummary struct {
	calls     int
	byServer  map[string]int           // replica → calls it answered
	failed    map[codes.Code]int       // calls no replica answered, by code
	elsewhere int                      // answered by another replica after an attempt failed
	p50       map[string]time.Duration // replica → median call time
}

func summarize(cs []*call) callSummary {
	s := callSummary{calls: len(cs), byServer: map[string]int{}, failed: map[codes.Code]int{}, p50: map[string]time.Duration{}}
	took := map[string][]time.Duration{}
	for _, c := range cs {
		by := c.servedBy()
		if by == "" {
			s.failed[c.code]++
			continue
		}
		s.byServer[by]++
		took[by] = append(took[by], c.took)
		if c.tries() > 1 && by != c.firstReplica() {
			s.elsewhere++
		}
	}
	for r, ds := range took {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		s.p50[r] = ds[len(ds)/2]
	}
	return s
}
