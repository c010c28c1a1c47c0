package replay

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/request"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// Bounds of the replays (policy preview, simulation, migration report).
const (
	// runTimeout bounds one replayed engine run, under the call's own
	// deadline.
	runTimeout = 10 * time.Second
	// settleRounds bounds the follow-up rounds a replay computes to reach
	// the settled plan.
	settleRounds = 3
	// Page sizes of PreviewPolicy and MigrationReport.
	defaultPage = 100
	maxPage     = 1000
)

// PolicyParser parses a candidate policy file exactly as the live file is
// parsed (server/policy.Parse), for PreviewPolicy; its error, which lists
// every problem, is returned as INVALID_ARGUMENT.
type PolicyParser func(file string, data []byte) (selection.Explainer, error)

// RunFunc runs the engine; opts include assign.WithContext(ctx). Tests
// substitute it to inject faults and slow runs.
type RunFunc func(ctx context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error)

// Config is what a [Service] replays with. Store is required; without
// Explainer and Parse, PreviewPolicy is UNIMPLEMENTED.
type Config struct {
	Store     *history.Store
	Explainer selection.Explainer
	Parse     PolicyParser
	// Run runs the engine; nil: assign.Run.
	Run RunFunc
	// MemoryBudget is Assign's memory budget: a replay estimated over an
	// eighth of it (what Assign keeps for small calls) is skipped.
	MemoryBudget int64
	// Stop ends a replay when the server's grace period does; nil: only
	// the call's end does.
	Stop func(context.Context) (context.Context, func())
}

// Service implements assigndv1.ReplayServiceServer over the server's
// history. Its replays never take Assign's capacity: they run one at a
// time on their own slot, each under a deadline, cancelled with the call,
// and a group whose estimate exceeds maxBytes is skipped, not run, so
// that one replay's memory stays beside the budget's, not in it.
type Service struct {
	assigndv1.UnimplementedReplayServiceServer
	store     *history.Store
	explainer selection.Explainer
	parse     PolicyParser
	run       RunFunc
	maxBytes  int64
	// slot is the replays' single concurrency slot.
	slot chan struct{}
	stop func(context.Context) (context.Context, func())
}

// New returns the replay service for c.
func New(c Config) *Service {
	run := c.Run
	if run == nil {
		run = func(_ context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
			return assign.Run(a, g, opts...)
		}
	}
	return &Service{store: c.Store, explainer: c.Explainer, parse: c.Parse, run: run, maxBytes: c.MemoryBudget / 8,
		slot: make(chan struct{}, 1), stop: c.Stop}
}

// replay is a recorded input decoded as Assign decodes it.
type replay struct {
	group string
	at    time.Time
	req   *assigndv1.AssignRequest
	g     *assign.Group
	bytes int64
}

// decodeInput decodes a recorded input with Assign's decoder
// ([request.ReadHeader], [request.Decode]).
func decodeInput(in history.Input) (*replay, error) {
	req, err := in.Decode()
	if err != nil {
		return nil, err
	}
	h, err := request.ReadHeader(req, 0)
	if err != nil {
		return nil, err
	}
	d, err := request.Decode(req, h.Protocol)
	if err != nil {
		return nil, err
	}
	return &replay{group: in.Group, at: in.Time, req: req, g: d.Group, bytes: request.EstimateBytes(req, len(in.Request))}, nil
}

// latest returns the group's latest kept input, decoded.
func (r *Service) latest(group string) (*replay, error) {
	ins := r.store.Inputs(group)
	if len(ins) == 0 {
		return nil, fmt.Errorf("no input kept")
	}
	return decodeInput(ins[len(ins)-1])
}

// page lists the ids of groups with a kept input, with the prefix, after
// the token, in id order: at most size of them, the token of the next
// page, and how many match in all.
func (r *Service) page(prefix, token string, size int32) ([]string, string, int, error) {
	switch {
	case size < 0:
		return nil, "", 0, status.Error(codes.InvalidArgument, "page_size must not be negative")
	case size == 0:
		size = defaultPage
	case size > maxPage:
		size = maxPage
	}
	var ids []string
	for _, g := range r.store.InputGroups() {
		if strings.HasPrefix(g, prefix) {
			ids = append(ids, g)
		}
	}
	sort.Strings(ids)
	total := len(ids)
	start := sort.SearchStrings(ids, token)
	if token != "" && start < len(ids) && ids[start] == token {
		start++
	}
	ids = ids[start:]
	next := ""
	if len(ids) > int(size) {
		ids = ids[:size]
		next = ids[len(ids)-1]
	}
	return ids, next, total, nil
}

// caller is the caller of the group's decision on the input, or else of
// its latest decision: a rule bound to callers decides on it.
func (r *Service) caller(group string) selection.Caller {
	_, ds, ok := r.store.Get(group, 1)
	if !ok || len(ds) == 0 || ds[0].GetCaller() == nil {
		return selection.Caller{}
	}
	c := ds[0].GetCaller()
	return selection.Caller{Subject: c.GetSubject(), CommonName: c.GetCommonName()}
}

// engine runs a on g with opts on the replays' slot, under the call's
// context and runTimeout.
func (r *Service) engine(ctx context.Context, rp *replay, a assign.Assignor, g *assign.Group, opts []assign.Option) (*assign.Result, error) {
	if rp.bytes > r.maxBytes {
		return nil, fmt.Errorf("estimated at %d bytes, over the replay limit of %d", rp.bytes, r.maxBytes)
	}
	select {
	case r.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, rpcerr.CallEnded(ctx)
	}
	defer func() { <-r.slot }()
	if r.stop != nil {
		var detach func()
		ctx, detach = r.stop(ctx)
		defer detach()
	}
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	return r.run(ctx, a, g, append(slices.Clip(opts), assign.WithContext(ctx))...)
}

// outcome runs a on the replay's group (its owners replaced by owned when
// owned is not nil) and follows up to the settled plan. It returns the
// first round's result, the settled one, and the figures.
func (r *Service) outcome(ctx context.Context, rp *replay, a assign.Assignor, proto assign.RebalanceProtocol, opts []assign.Option, owned map[string][]assign.TopicPartitions) (first, settled *assign.Result, fig *assigndv1.RebalanceFigures, err error) {
	g := withOwners(rp.g, owned, a)
	if g.Protocol == assign.ProtocolUnspecified {
		g.Protocol = proto
	}
	if first, err = r.engine(ctx, rp, a, g, opts); err != nil {
		return nil, nil, nil, err
	}
	fig = firstFigures(first)
	settled = first
	for settled.FollowupRequired && fig.FollowupRounds < settleRounds {
		next := withOwners(g, assignedOf(settled), a)
		next.Generation++
		if settled, err = r.engine(ctx, rp, a, next, opts); err != nil {
			return nil, nil, nil, err
		}
		fig.FollowupRounds++
	}
	settledFigures(fig, g, settled)
	return first, settled, fig, nil
}

// withOwners copies g with each member's owned partitions replaced by
// owned[member id] (members not in owned own nothing); owned nil keeps
// g's owners. The copy shares topics and subscriptions. For sticky@1,
// which reads a member's history from its user data (as the Java
// StickyAssignor does), not from its owned partitions, the user data is
// rewritten too: StickyAssignorUserData V1 with the new owners and the
// generation before g's, as the member would send it.
func withOwners(g *assign.Group, owned map[string][]assign.TopicPartitions, a assign.Assignor) *assign.Group {
	c := *g
	c.Members = slices.Clone(g.Members)
	if owned == nil {
		return &c
	}
	sticky := a.Name() == assign.NameSticky
	for i := range c.Members {
		m := &c.Members[i]
		m.Owned = owned[m.ID]
		if sticky {
			m.UserData = wire.AppendStickyUserData(nil, m.Owned, g.Generation-1, true)
		}
	}
	return &c
}

// assignedOf is what each member is assigned in res.
func assignedOf(res *assign.Result) map[string][]assign.TopicPartitions {
	out := make(map[string][]assign.TopicPartitions, len(res.Members))
	for _, m := range res.Members {
		out[m.ID] = m.Assigned
	}
	return out
}

// lookupAssignor resolves "name@version" or "name" (version 1).
func lookupAssignor(ref string) (assign.Assignor, error) {
	name, ver, _ := strings.Cut(ref, "@")
	v := 0
	if ver != "" {
		if _, err := fmt.Sscanf(ver, "%d", &v); err != nil || v <= 0 {
			return nil, fmt.Errorf("%q is not name@version", ref)
		}
	}
	a, ok := assign.Lookup(name, v)
	if !ok {
		return nil, fmt.Errorf("unknown assignor %q", ref)
	}
	return a, nil
}
