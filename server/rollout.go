package server

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
)

// Bounds of the rollout service's replays (policy preview, simulation,
// migration report).
const (
	// rolloutRunTimeout bounds one replayed engine run, under the call's
	// own deadline.
	rolloutRunTimeout = 10 * time.Second
	// rolloutSettleRounds bounds the follow-up rounds a replay computes to
	// reach the settled plan.
	rolloutSettleRounds = 3
	// Page sizes of PreviewPolicy and MigrationReport.
	rolloutDefaultPage = 100
	rolloutMaxPage     = 1000
)

// PolicyParser parses a candidate policy file exactly as the live file is
// parsed (server/policy.Parse), for PreviewPolicy; its error, which lists
// every problem, is returned as INVALID_ARGUMENT.
type PolicyParser func(file string, data []byte) (Explainer, error)

// rolloutService implements assigndv1.RolloutServiceServer over the
// server's history. Its replays never take Assign's capacity: they run one
// at a time on their own slot (slot), each under a deadline, cancelled
// with the call, and a group whose estimate exceeds maxBytes (an eighth of
// the memory budget, what Assign keeps for small calls) is skipped, not
// run, so that one replay's memory stays beside the budget's, not in it.
type rolloutService struct {
	assigndv1.UnimplementedRolloutServiceServer
	store     *history.Store
	explainer Explainer
	parse     PolicyParser
	run       runFunc
	maxBytes  int64
	// slot is the replays' single concurrency slot.
	slot chan struct{}
	// stopOnShutdown ends a replay when the server's grace period does;
	// nil: only the call's end does.
	stopOnShutdown func(context.Context) (context.Context, func())
}

func newRolloutService(store *history.Store, e Explainer, parse PolicyParser, run runFunc, memoryBudget int64) *rolloutService {
	return &rolloutService{store: store, explainer: e, parse: parse, run: run, maxBytes: memoryBudget / 8, slot: make(chan struct{}, 1)}
}

// replay is a recorded input decoded as Assign decodes it.
type replay struct {
	group string
	at    time.Time
	req   *assigndv1.AssignRequest
	g     *assign.Group
	bytes int64
}

// decodeInput decodes a recorded input as Assign does.
func decodeInput(in history.Input) (*replay, error) {
	req, err := in.Decode()
	if err != nil {
		return nil, err
	}
	proto, err := rebalanceProtocol(req.GetRebalanceProtocol())
	if err != nil {
		return nil, err
	}
	ts, err := topics(req)
	if err != nil {
		return nil, err
	}
	g := &assign.Group{Generation: req.GetGenerationId(), Protocol: proto, Topics: ts}
	if _, _, err := members(req, g); err != nil {
		return nil, err
	}
	return &replay{group: in.Group, at: in.Time, req: req, g: g, bytes: estimateBytes(req, len(in.Request))}, nil
}

// latest returns the group's latest kept input, decoded.
func (r *rolloutService) latest(group string) (*replay, error) {
	ins := r.store.Inputs(group)
	if len(ins) == 0 {
		return nil, fmt.Errorf("no input kept")
	}
	return decodeInput(ins[len(ins)-1])
}

// page lists the ids of groups with a kept input, with the prefix, after
// the token, in id order: at most size of them, the token of the next
// page, and how many match in all.
func (r *rolloutService) page(prefix, token string, size int32) ([]string, string, int, error) {
	switch {
	case size < 0:
		return nil, "", 0, status.Error(codes.InvalidArgument, "page_size must not be negative")
	case size == 0:
		size = rolloutDefaultPage
	case size > rolloutMaxPage:
		size = rolloutMaxPage
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
func (r *rolloutService) caller(group string) Caller {
	_, ds, ok := r.store.Get(group, 1)
	if !ok || len(ds) == 0 || ds[0].GetCaller() == nil {
		return Caller{}
	}
	c := ds[0].GetCaller()
	return Caller{Subject: c.GetSubject(), CommonName: c.GetCommonName()}
}

// engine runs a on g with opts on the replays' slot, under the call's
// context and rolloutRunTimeout.
func (r *rolloutService) engine(ctx context.Context, rp *replay, a assign.Assignor, g *assign.Group, opts []assign.Option) (*assign.Result, error) {
	if rp.bytes > r.maxBytes {
		return nil, fmt.Errorf("estimated at %d bytes, over the replay limit of %d", rp.bytes, r.maxBytes)
	}
	select {
	case r.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, callEnded(ctx)
	}
	defer func() { <-r.slot }()
	if r.stopOnShutdown != nil {
		var detach func()
		ctx, detach = r.stopOnShutdown(ctx)
		defer detach()
	}
	ctx, cancel := context.WithTimeout(ctx, rolloutRunTimeout)
	defer cancel()
	return r.run(ctx, a, g, append(slices.Clip(opts), assign.WithContext(ctx))...)
}

// outcome runs a on the replay's group (its owners replaced by owned when
// owned is not nil) and follows up to the settled plan. It returns the
// first round's result, the settled one, and the figures.
func (r *rolloutService) outcome(ctx context.Context, rp *replay, a assign.Assignor, proto assign.RebalanceProtocol, opts []assign.Option, owned map[string][]assign.TopicPartitions) (first, settled *assign.Result, fig *assigndv1.RebalanceFigures, err error) {
	g := withOwners(rp.g, owned, a)
	if g.Protocol == assign.ProtocolUnspecified {
		g.Protocol = proto
	}
	if first, err = r.engine(ctx, rp, a, g, opts); err != nil {
		return nil, nil, nil, err
	}
	fig = firstFigures(first)
	settled = first
	for settled.FollowupRequired && fig.FollowupRounds < rolloutSettleRounds {
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
