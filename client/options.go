package client

import (
	"crypto/tls"
	"time"

	"google.golang.org/grpc"
)

// DefaultTimeout bounds every call unless the caller's context ends sooner.
// It is short because a group leader calls assignd while the whole group
// waits in a rebalance; a leader that falls back in-process after
// DefaultTimeout still finishes far inside Kafka's default rebalance timeout
// (60 s).
const DefaultTimeout = 2 * time.Second

// DefaultMaxAttempts is how many times a call that fails with UNAVAILABLE is
// tried in all, within its deadline.
const DefaultMaxAttempts = 3

// DefaultReconnectBackoff caps the delay between reconnection attempts to a
// replica that went away. gRPC's own default (120 s) would send every
// rebalance of the next two minutes to the in-process fallback after a
// short assignd restart; leaders call rarely, so reconnecting more eagerly
// costs nothing.
const DefaultReconnectBackoff = 5 * time.Second

// Option configures a Client. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	tls           *tls.Config
	timeout       time.Duration
	maxAttempts   int
	reconnect     time.Duration
	serviceConfig string
	dialOptions   []grpc.DialOption
}

func defaultConfig() config {
	return config{timeout: DefaultTimeout, maxAttempts: DefaultMaxAttempts, reconnect: DefaultReconnectBackoff}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTLS connects with TLS configured by cfg; set cfg.Certificates (or
// cfg.GetClientCertificate) to present a client certificate for mTLS, and
// cfg.RootCAs to trust a private CA. Default: plaintext, which suits an
// assignd on the same host or behind a service mesh that encrypts.
func WithTLS(cfg *tls.Config) Option { return optionFunc(func(c *config) { c.tls = cfg }) }

// WithTimeout bounds each call: the call ends at the earlier of the
// caller's deadline and now+d. 0 leaves calls bounded by the caller's
// context only. Default: DefaultTimeout (2 s).
func WithTimeout(d time.Duration) Option { return optionFunc(func(c *config) { c.timeout = d }) }

// WithMaxAttempts sets how many times a call failing with UNAVAILABLE is
// tried in all (gRPC caps it at 5); 1 disables retries. Default:
// DefaultMaxAttempts (3).
func WithMaxAttempts(n int) Option { return optionFunc(func(c *config) { c.maxAttempts = n }) }

// WithReconnectBackoff caps the delay between reconnection attempts.
// Default: DefaultReconnectBackoff (5 s).
func WithReconnectBackoff(d time.Duration) Option {
	return optionFunc(func(c *config) { c.reconnect = d })
}

// WithServiceConfig replaces the client's gRPC service config (load
// balancing, retry policy, health checking) with the given JSON, for
// deployments that need something else than round robin over healthy
// replicas. Default: ServiceConfig(DefaultMaxAttempts) — or the attempts
// given to WithMaxAttempts.
func WithServiceConfig(json string) Option {
	return optionFunc(func(c *config) { c.serviceConfig = json })
}

// WithDialOptions adds options to grpc.NewClient after the client's own,
// so they can override them (interceptors, keepalive, a custom resolver,
// per-RPC credentials). Default: none.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return optionFunc(func(c *config) { c.dialOptions = append(c.dialOptions, opts...) })
}
