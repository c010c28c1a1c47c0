package server

import (
	"crypto/tls"
	"runtime"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/assignd/assignd/assign"
)

// DefaultMaxRecvBytes is the default request size limit: 256 MiB, enough
// for a group of 2,000 members subscribing to 500 topics of 2,000
// partitions each (1,000,000 partitions) with every member's owned
// partitions in its metadata.
const DefaultMaxRecvBytes = 256 << 20

// DefaultMaxPartitions is the default limit on the sum of the partition
// counts in a request's topic metadata.
const DefaultMaxPartitions = 10_000_000

// DefaultMaxQueueWait is how long an Assign call waits at most for a
// concurrency slot when its own deadline is later or absent.
const DefaultMaxQueueWait = 30 * time.Second

// Option configures a Server. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	maxConcurrent int
	maxQueueWait  time.Duration
	maxRecvBytes  int
	maxPartitions int64
	tls           *tls.Config
	meters        metric.MeterProvider
	tracers       trace.TracerProvider
	grpcOptions   []grpc.ServerOption
	explainer     Explainer
	run           runFunc
}

func defaultConfig() config {
	return config{
		maxConcurrent: runtime.GOMAXPROCS(0),
		maxQueueWait:  DefaultMaxQueueWait,
		maxRecvBytes:  DefaultMaxRecvBytes,
		maxPartitions: DefaultMaxPartitions,
		run:           assign.Run,
	}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithMaxConcurrentAssigns bounds how many Assign calls compute at once;
// the excess waits until shortly before its deadline, then fails with
// RESOURCE_EXHAUSTED. Default: GOMAXPROCS (assignment is CPU-bound).
func WithMaxConcurrentAssigns(n int) Option {
	return optionFunc(func(c *config) { c.maxConcurrent = n })
}

// WithMaxQueueWait caps how long an Assign call waits for a concurrency
// slot when its deadline is later or absent; 0 waits for the deadline only.
// Default: DefaultMaxQueueWait (30 s).
func WithMaxQueueWait(d time.Duration) Option {
	return optionFunc(func(c *config) { c.maxQueueWait = d })
}

// WithMaxRecvBytes sets the largest request message accepted; larger ones
// fail with RESOURCE_EXHAUSTED. Default: DefaultMaxRecvBytes (256 MiB).
func WithMaxRecvBytes(n int) Option { return optionFunc(func(c *config) { c.maxRecvBytes = n }) }

// WithMaxPartitions sets the largest sum of partition counts a request's
// topic metadata may have; larger requests fail with RESOURCE_EXHAUSTED
// before anything is computed. Default: DefaultMaxPartitions (10,000,000).
func WithMaxPartitions(n int64) Option { return optionFunc(func(c *config) { c.maxPartitions = n }) }

// WithTLS serves TLS with cfg; set cfg.ClientAuth to
// tls.RequireAndVerifyClientCert (and cfg.ClientCAs) for mTLS, which also
// gives the Selector the caller's identity. Default: plaintext.
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
// the same policy as the Server's Selector. Default: none; ExplainPolicy
// then fails with UNIMPLEMENTED.
func WithExplainer(e Explainer) Option { return optionFunc(func(c *config) { c.explainer = e }) }

// withRun replaces assign.Run, for fault-injection tests.
func withRun(run runFunc) Option { return optionFunc(func(c *config) { c.run = run }) }
