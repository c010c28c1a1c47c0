package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/assignd/assignd/server"
)

// config is assignd's configuration. Every field is a flag and, for flags
// not given on the command line, an ASSIGND_* environment variable
// (--max-recv-bytes ↔ ASSIGND_MAX_RECV_BYTES); the flag wins over the
// variable, the variable over the default.
type config struct {
	listen          string
	maxRecvBytes    int
	shutdownTimeout time.Duration
	tlsCert         string
	tlsKey          string
	tlsClientCA     string
	maxConcurrent   int
	maxPartitions   int64
	memoryBudget    int64
	maxQueueWait    time.Duration
	queueTarget     time.Duration
	// metricsListen is the HTTP listener of /metrics, the probes and the
	// console.
	metricsListen      string
	metricsTLSCert     string
	metricsTLSKey      string
	metricsTLSClientCA string
	logLevel           string
	logFormat          string
	// policy is the policy file; empty serves the embedded default policy.
	policy              string
	shadowConcurrency   int
	shadowMaxPartitions int
	history             historyConfig
	rollout             rolloutConfig
	load                loadConfig
	version             bool
}

// The listeners' default addresses: loopback, so that a bare assignd
// serves nobody else.
const (
	defaultListen        = "127.0.0.1:7070"
	defaultMetricsListen = "127.0.0.1:9464"
)

// grpcFlags declare the gRPC listener: its address, TLS and the largest
// request and shutdown grace.
func grpcFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.listen, "listen", defaultListen, "gRPC listen `address`; port 0 picks a free port (the bound address is logged)")
	fs.IntVar(&c.maxRecvBytes, "max-recv-bytes", server.DefaultMaxRecvBytes, "largest accepted request in `bytes` (the default fits a 1,000,000-partition group)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 15*time.Second, "on SIGTERM/SIGINT, how long calls in flight may take to finish before they are cut off")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "PEM certificate `file` to serve TLS (with --tls-key); re-read when it changes, for new connections")
	fs.StringVar(&c.tlsKey, "tls-key", "", "PEM private key `file` of --tls-cert")
	fs.StringVar(&c.tlsClientCA, "tls-client-ca", "", "PEM CA bundle `file`: require client certificates signed by it (mTLS); needs --tls-cert")
}

// admissionFlags declare how much Assign work runs at once (docs/operations.md#bounded-work).
func admissionFlags(fs *flag.FlagSet, c *config) {
	fs.IntVar(&c.maxConcurrent, "max-concurrent-assigns", 0, "Assign calls computed at once; excess calls wait until shortly before their deadline (or are refused at once when the line ahead would keep them past it), then get RESOURCE_EXHAUSTED; 0 means GOMAXPROCS")
	fs.Int64Var(&c.maxPartitions, "max-partitions", server.DefaultMaxPartitions, "largest sum of partition counts in one request; larger requests get RESOURCE_EXHAUSTED")
	fs.Int64Var(&c.memoryBudget, "memory-budget", 0, "`bytes` the Assign calls computing at once may take together, each estimated from its request "+
		"(partitions, members, size) before any work; a call waits until its estimate fits, one that never could gets RESOURCE_EXHAUSTED at once; "+
		"0 means three quarters of the Go memory limit less --history-bytes, the limit being what assignd sets to 90% of the container's (cgroup) or the machine's memory unless GOMEMLIMIT is set")
	fs.DurationVar(&c.maxQueueWait, "max-queue-wait", server.DefaultMaxQueueWait, "longest wait for an Assign slot when the call's deadline is later or absent")
	fs.DurationVar(&c.queueTarget, "queue-target", server.DefaultQueueTarget, "longest expected wait in line for which a small Assign call is queued; one that would wait longer is refused at once (OVERLOADED, with the wait as its retry hint) so its leader falls back at once; 0 queues small calls as their deadline allows")
}

func versionFlags(fs *flag.FlagSet, c *config) {
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
}

// parseConfig reads args, then the environment (through lookupEnv, as
// os.LookupEnv) for flags args did not set. A variable set to the empty
// string counts: ASSIGND_METRICS_LISTEN= turns the HTTP side off.
func parseConfig(args []string, lookupEnv func(string) (string, bool), usageOut io.Writer) (config, error) {
	var c config
	fs, _ := newFlagSet(&c)
	fs.SetOutput(usageOut)
	fs.Usage = func() { usage(usageOut) }
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || noEnv[f.Name] {
			return
		}
		if v, ok := lookupEnv(envName(f.Name)); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", envName(f.Name), v, err))
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return c, c.validate()
}

func (c *config) validate() error {
	switch {
	case (c.tlsCert == "") != (c.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	case c.tlsClientCA != "" && c.tlsCert == "":
		return errors.New("--tls-client-ca needs --tls-cert and --tls-key")
	case (c.metricsTLSCert == "") != (c.metricsTLSKey == ""):
		return errors.New("--metrics-tls-cert and --metrics-tls-key go together")
	case c.metricsTLSClientCA != "" && c.metricsTLSCert == "":
		return errors.New("--metrics-tls-client-ca needs --metrics-tls-cert and --metrics-tls-key")
	case c.maxRecvBytes > math.MaxUint32:
		return errors.New("--max-recv-bytes must fit gRPC's 32-bit message length (at most 4294967295)")
	case c.memoryBudget != 0 && c.memoryBudget < server.MinMemoryBudget:
		return fmt.Errorf("--memory-budget %d: want 0 (derived from GOMEMLIMIT) or at least %d bytes", c.memoryBudget, server.MinMemoryBudget)
	case c.maxRecvBytes < 1 || c.maxPartitions < 1 || c.maxConcurrent < 0 || c.memoryBudget < 0 || c.maxQueueWait < 0 || c.queueTarget < 0 || c.shutdownTimeout < 0 ||
		c.shadowConcurrency < 0 || c.shadowMaxPartitions < 0:
		return errors.New("limits and timeouts must not be negative, and --max-recv-bytes and --max-partitions must be positive")
	}
	if err := c.load.validate(c.history.shared()); err != nil {
		return err
	}
	if err := c.history.validate(); err != nil {
		return err
	}
	if _, err := parseLevel(c.logLevel); err != nil {
		return err
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return fmt.Errorf("--log-format %q: want text or json", c.logFormat)
	}
	return nil
}
