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

// DefaultMaxResponseBytes is the largest response a Client accepts by
// default: 512 MiB. It is derived from the largest response an assignd can
// send, with room for servers whose limits were raised. A response costs at
// most about 8 bytes per partition (4 in the encoded assignment, up to 4 as
// a varint in a decoded or pending list) plus what echoes the request
// (member ids, topic names, revoked lists, which mirror the owned
// partitions the members reported), at most the request's size. With the
// server's default limits (2,000,000 partitions, 64 MiB requests) that is
// about 80 MiB; with them raised to 10,000,000 partitions and 256 MiB,
// about 340 MiB, rounded up to a power of two. gRPC's own default, 4 MiB, is
// below the response for a group of a few hundred thousand partitions whose
// members each read many topics (a 1,000,000-partition group of 2,000
// members on 500 topics gets 19 MB even in the encoded view), which would
// then fall back after assignd did all the work. The limit allocates
// nothing: a response takes the memory of its actual size.
const DefaultMaxResponseBytes = 512 << 20

// DefaultFallbackTimeout bounds the in-process fallback of the Kafka-client
// adapters (kgoassign, saramaassign) unless they are given another bound.
// After it the engine returns the valid plan it has (every partition
// placed, refinements skipped) and asks for a follow-up rebalance, so a
// leader is blocked at most the call's timeout, this bound and one linear
// placement, far inside Kafka's default rebalance timeout (60 s).
const DefaultFallbackTimeout = 5 * time.Second

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
	maxResponse   int
}

func defaultConfig() config {
	return config{
		timeout: DefaultTimeout, maxAttempts: DefaultMaxAttempts, reconnect: DefaultReconnectBackoff,
		maxResponse: DefaultMaxResponseBytes,
	}
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

// WithMaxResponseBytes sets the largest response the client accepts; a
// larger one fails with RESOURCE_EXHAUSTED wrapping [ErrResponseTooLarge],
// after the server did all the work. Lower it only to bound the memory a
// misbehaving server could make the client allocate. n must be positive.
// Default: DefaultMaxResponseBytes (512 MiB).
func WithMaxResponseBytes(n int) Option { return optionFunc(func(c *config) { c.maxResponse = n }) }

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
