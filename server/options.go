package server

import (
	"crypto/tls"
	"math"
	"runtime"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/replay"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/server/selection"
)

// DefaultMaxRecvBytes is the default request size limit: 64 MiB. A group
// of 2,000 members subscribing to 500 topics of 2,000 partitions each
// (1,000,000 partitions) with every member's owned partitions in its raw
// metadata is about 11 MB; the limit leaves room for 5 times that, and
// bounds what gRPC holds for a request before assignd can admit it.
const DefaultMaxRecvBytes = 64 << 20

// DefaultMaxPartitions is the default limit on the sum of the partition
// counts in a request's topic metadata: 2,000,000, twice the largest group
// assignd is measured on. The partition count costs the request 5 bytes
// per topic, whatever its value, but about 48 bytes per partition to
// serve: at this limit one call is estimated at 96 MiB.
const DefaultMaxPartitions = 2_000_000

// DefaultMemoryBudget returns the memory budget a Server uses without
// WithMemoryBudget, beside reserved bytes held for the whole process's
// life (the history's bound, [history.WithMaxBytes], when it has one):
// three quarters of the Go memory limit (GOMEMLIMIT,
// debug.SetMemoryLimit) less reserved, or 2 GiB when there is no limit;
// never below MinMemoryBudget. The rest of the limit is for what the
// budget does not cover: requests being received, decoded and waiting
// for admission, and the runtime itself.
func DefaultMemoryBudget(reserved int64) int64 {
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < math.MaxInt64 {
		return max(MinMemoryBudget, (limit-reserved)/4*3)
	}
	return 2 << 30
}

// DefaultMaxQueueWait is how long an Assign call waits at most for a
// concurrency slot when its own deadline is later or absent.
const DefaultMaxQueueWait = 30 * time.Second

// DefaultQueueTarget is the longest wait in line a small Assign call is
// queued for: 200 ms, so that an answered call is answered in about a
// quarter of a second even under overload (a storm of the whole fleet's
// groups), and a leader whose call cannot be served that soon falls back
// at once rather than after most of its deadline.
const DefaultQueueTarget = 200 * time.Millisecond

// Option configures a Server. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	maxConcurrent int
	maxQueueWait  time.Duration
	queueTarget   time.Duration
	maxRecvBytes  int
	maxPartitions int64
	memoryBudget  int64
	memoryReturn  time.Duration
	tls           *tls.Config
	meters        metric.MeterProvider
	tracers       trace.TracerProvider
	grpcOptions   []grpc.ServerOption
	explainer     selection.Explainer
	run           runFunc
	history       *history.Store
	policyParser  replay.PolicyParser
	load          LoadSource
	rollouts      rollout.Statuser
	loadClusters  LoadClusters
}

func defaultConfig() config {
	return config{
		maxConcurrent: runtime.GOMAXPROCS(0),
		maxQueueWait:  DefaultMaxQueueWait,
		queueTarget:   DefaultQueueTarget,
		maxRecvBytes:  DefaultMaxRecvBytes,
		maxPartitions: DefaultMaxPartitions,
		memoryReturn:  DefaultMemoryReturnDelay,
		run:           runEngine,
	}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithMaxConcurrentAssigns bounds how many Assign calls compute at once;
// the excess waits in line until shortly before its deadline, then fails
// with RESOURCE_EXHAUSTED (reason OVERLOADED), or fails so at once when
// the calls ahead of it would keep it waiting past that. Large calls (estimated over 8 MiB, or over the
// budget's reserved share when that is smaller) hold at most n−1 of the
// slots, so that one is always left for small groups (with n = 1, none is
// kept). Default: GOMAXPROCS (assignment is CPU-bound).
func WithMaxConcurrentAssigns(n int) Option {
	return optionFunc(func(c *config) { c.maxConcurrent = n })
}

// WithMaxQueueWait caps how long an Assign call waits for a concurrency
// slot when its deadline is later or absent; 0 waits for the deadline only.
// Default: DefaultMaxQueueWait (30 s).
func WithMaxQueueWait(d time.Duration) Option {
	return optionFunc(func(c *config) { c.maxQueueWait = d })
}

// WithQueueTarget sets the longest expected wait in line for which a
// small Assign call (estimated at 8 MiB or less) is queued: one whose wait,
// estimated from the calls ahead of it and the recent time a call held
// its slot, is longer is refused at once with ERROR_REASON_OVERLOADED and
// that estimate as its retry hint. Large calls wait as their deadline
// allows. 0 turns the target off: small calls too queue until shortly
// before their deadline (or [WithMaxQueueWait]). Default:
// DefaultQueueTarget (200 ms).
func WithQueueTarget(d time.Duration) Option {
	return optionFunc(func(c *config) { c.queueTarget = d })
}

// WithMaxRecvBytes sets the largest request message accepted; larger ones
// fail with RESOURCE_EXHAUSTED. Default: DefaultMaxRecvBytes (64 MiB).
func WithMaxRecvBytes(n int) Option { return optionFunc(func(c *config) { c.maxRecvBytes = n }) }

// WithMaxPartitions sets the largest sum of partition counts a request's
// topic metadata may have; larger requests fail with RESOURCE_EXHAUSTED
// before anything is computed. Default: DefaultMaxPartitions (2,000,000).
func WithMaxPartitions(n int64) Option { return optionFunc(func(c *config) { c.maxPartitions = n }) }

// WithMemoryBudget bounds the sum of the estimated memory of the Assign
// calls computing at once. Each call's estimate is computed from its
// request before any work (48 bytes per partition, 1 KiB per member, 64
// per subscription entry, 192 per assigned member-topic, 8 per request
// byte); a call waits until its estimate fits. An
// eighth of the budget is kept for small calls: a large call must fit in
// the other seven eighths, and one that never could is refused at once
// with RESOURCE_EXHAUSTED, ErrorInfo reason LIMIT_EXCEEDED and limit
// "memory_bytes". At least MinMemoryBudget. Default: DefaultMemoryBudget
// beside the history's bound (WithHistory).
func WithMemoryBudget(bytes int64) Option {
	return optionFunc(func(c *config) { c.memoryBudget = bytes })
}

// WithTLS serves TLS with cfg; set cfg.ClientAuth to
// tls.RequireAndVerifyClientCert (and cfg.ClientCAs) for mTLS, which also
// gives the selection.Selector the caller's identity. Default: plaintext.
func WithTLS(cfg *tls.Config) Option { return optionFunc(func(c *config) { c.tls = cfg }) }

// WithMeterProvider sends RPC metrics (otelgrpc) and the domain metrics to
// mp. Default: a no-op provider (no metrics).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meters = mp })
}

// WithTracerProvider traces calls through tp (otelgrpc, W3C trace context).
// Default: a no-op provider (no traces).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tracers = tp })
}

// WithGRPCServerOptions adds options to the underlying grpc.Server, e.g.
// keepalive settings. Default: none.
func WithGRPCServerOptions(opts ...grpc.ServerOption) Option {
	return optionFunc(func(c *config) { c.grpcOptions = append(c.grpcOptions, opts...) })
}

// WithExplainer answers ExplainPolicy calls with e, which should explain
// the same policy as the Server's selection.Selector. Default: none; ExplainPolicy
// then fails with UNIMPLEMENTED.
func WithExplainer(e selection.Explainer) Option {
	return optionFunc(func(c *config) { c.explainer = e })
}

// withRun replaces the engine, for fault-injection tests.
func withRun(run runFunc) Option { return optionFunc(func(c *config) { c.run = run }) }

// WithHistory records a Decision of every answered Assign call in h and
// serves h through GroupHistoryService (and the console on
// [Server.OpsHandler]). Recording happens once the response is
// written and never fails a call. nil keeps no history: GroupHistoryService
// then answers UNIMPLEMENTED. Default: none.
func WithHistory(h *history.Store) Option { return optionFunc(func(c *config) { c.history = h }) }

// WithPolicyParser lets PreviewPolicy parse a candidate policy file, as
// the live one is parsed (assignd passes server/policy's Parse). Default:
// none; PreviewPolicy then fails with UNIMPLEMENTED.
func WithPolicyParser(p replay.PolicyParser) Option {
	return optionFunc(func(c *config) { c.policyParser = p })
}

// WithLoadSource gives rules with params.load_source "kafka" their
// partition weights, for requests that carry none (see
// server/loadsource). Default: none; such requests are planned by counts,
// with a warning.
func WithLoadSource(l LoadSource) Option { return optionFunc(func(c *config) { c.load = l }) }

// WithLoadClusters gives rules with params.load_cluster their cluster's
// load source (server/loadsource's Clusters). Default: none; such rules'
// requests are planned by counts, with a warning.
func WithLoadClusters(c LoadClusters) Option {
	return optionFunc(func(cfg *config) { cfg.loadClusters = c })
}

// WithRolloutStatus reports staged rollouts in RolloutStatus, in
// ExplainPolicy (ExplainPolicyResponse.rollout) and on the console.
// Default: none (RolloutStatus is UNIMPLEMENTED).
func WithRolloutStatus(r rollout.Statuser) Option {
	return optionFunc(func(c *config) { c.rollouts = r })
}
