package leadercall

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/client"
)

// Config is what every adapter is configured with, whatever its Kafka
// client: each adapter's sealed options set it, and add their own beside
// it.
type Config struct {
	// Timeout bounds the call to assignd; always positive.
	Timeout time.Duration
	// Fallback bounds the in-process fallback; always positive.
	Fallback time.Duration
	// Logger is nil for slog.Default().
	Logger *slog.Logger
	// Meters is nil for the global meter provider.
	Meters metric.MeterProvider
}

// DefaultConfig is the configuration of an adapter given no options.
func DefaultConfig() Config {
	return Config{Timeout: client.DefaultTimeout, Fallback: client.DefaultFallbackTimeout}
}

// SetTimeout sets the call's bound; d ≤ 0 selects client.DefaultTimeout,
// so that the call is never left unbounded.
func (c *Config) SetTimeout(d time.Duration) { c.Timeout = positiveOr(d, client.DefaultTimeout) }

// SetFallbackTimeout sets the fallback's bound; d ≤ 0 selects
// client.DefaultFallbackTimeout.
func (c *Config) SetFallbackTimeout(d time.Duration) {
	c.Fallback = positiveOr(d, client.DefaultFallbackTimeout)
}

func positiveOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Leader is what an adapter keeps for the balances it runs as group
// leader: its logger, its instruments and its counters.
type Leader struct {
	Logger *slog.Logger
	inst   instruments

	served, fallbacks, failures atomic.Uint64
}

// NewLeader sets up the leader side of adapter, the name of its package
// below client: it prefixes errors and names the instruments' scope. The
// instruments have the same names in every adapter, so one dashboard
// covers all.
func NewLeader(adapter string, cfg Config) (*Leader, error) {
	l := &Leader{Logger: cfg.Logger}
	if l.Logger == nil {
		l.Logger = slog.Default()
	}
	inst, err := newInstruments(cfg.Meters, "github.com/assignd/assignd/client/"+adapter)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", adapter, err)
	}
	l.inst = inst
	return l, nil
}

// Done counts and records one balance of protocol: who computed it, why
// it fell back ("" when it did not), and how long it took.
func (l *Leader) Done(protocol string, s client.BalanceSource, reason string, took time.Duration) {
	l.inst.record(protocol, s, reason, took)
	switch s {
	case client.SourceService:
		l.served.Add(1)
	case client.SourceFallback:
		l.fallbacks.Add(1)
	case client.SourceNone:
		l.failures.Add(1)
	}
}

// Stats returns the counters since the leader was set up.
func (l *Leader) Stats() client.BalanceStats {
	return client.BalanceStats{Served: l.served.Load(), Fallbacks: l.fallbacks.Load(), Failures: l.failures.Load()}
}

// Must returns an adapter built for one of its own protocol names, which
// only a broken meter provider can fail to build: it panics then.
func Must[A any](a A, err error) A {
	if err != nil {
		panic(err)
	}
	return a
}
