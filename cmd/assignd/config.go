package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/loadsource"
)

// config is assignd's configuration. Every field is a flag and, for flags
// not given on the command line, an ASSIGND_* environment variable
// (--max-recv-bytes ↔ ASSIGND_MAX_RECV_BYTES); the flag wins over the
// variable, the variable over the default.
type config struct {
	listen          string
	metricsListen   string
	maxRecvBytes    int
	maxConcurrent   int
	maxPartitions   int64
	memoryBudget    int64
	maxQueueWait    time.Duration
	shutdownTimeout time.Duration
	tlsCert         string
	tlsKey          string
	tlsClientCA     string
	logLevel        string
	logFormat       string
	// policy is the policy file; empty serves the embedded default policy.
	policy              string
	shadowConcurrency   int
	shadowMaxPartitions int
	historyDecisions    int
	historyGroups       int
	history             historyConfig
	rollout             rolloutConfig
	metricsTLSCert      string
	metricsTLSKey       string
	metricsTLSClientCA  string
	// loadBrokers, when set, is the Kafka cluster whose log-end offsets
	// give rules with params.load_source "kafka" their partition load.
	loadBrokers  string
	loadInterval time.Duration
	loadConn     kafkaConn // TLS and SASL of --load-brokers
	version      bool
	// loadMargin is how long after its epoch a shared weight snapshot
	// waits before it is planned with (docs/load-aware.md).
	loadMargin time.Duration
}

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return "ASSIGND_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// newFlagSet declares every flag of assignd.
func newFlagSet(c *config) *flag.FlagSet {
	fs := flag.NewFlagSet("assignd", flag.ContinueOnError)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:7070", "gRPC listen `address`; port 0 picks a free port (the bound address is logged)")
	fs.StringVar(&c.metricsListen, "metrics-listen", "127.0.0.1:9464", "HTTP `address` for /metrics (Prometheus), /healthz, /readyz and the read-only /console/ (docs/observatory.md); empty disables it")
	fs.IntVar(&c.maxRecvBytes, "max-recv-bytes", server.DefaultMaxRecvBytes, "largest accepted request in `bytes` (the default fits a 1,000,000-partition group)")
	fs.IntVar(&c.maxConcurrent, "max-concurrent-assigns", 0, "Assign calls computed at once; excess calls wait until shortly before their deadline, then get RESOURCE_EXHAUSTED; 0 means GOMAXPROCS")
	fs.Int64Var(&c.maxPartitions, "max-partitions", server.DefaultMaxPartitions, "largest sum of partition counts in one request; larger requests get RESOURCE_EXHAUSTED")
	fs.Int64Var(&c.memoryBudget, "memory-budget", 0, "`bytes` the Assign calls computing at once may take together, each estimated from its request "+
		"(partitions, members, size) before any work; a call waits until its estimate fits, one that never could gets RESOURCE_EXHAUSTED at once; "+
		"0 means three quarters of the Go memory limit, which assignd sets to 90% of the container's (cgroup) or the machine's memory unless GOMEMLIMIT is set")
	fs.DurationVar(&c.maxQueueWait, "max-queue-wait", server.DefaultMaxQueueWait, "longest wait for an Assign slot when the call's deadline is later or absent")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 15*time.Second, "on SIGTERM/SIGINT, how long calls in flight may take to finish before they are cut off")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "PEM certificate `file` to serve TLS (with --tls-key)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "PEM private key `file` of --tls-cert")
	fs.StringVar(&c.tlsClientCA, "tls-client-ca", "", "PEM CA bundle `file`: require client certificates signed by it (mTLS); needs --tls-cert")
	fs.StringVar(&c.logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.StringVar(&c.logFormat, "log-format", "text", "log `format`: text or json")
	fs.StringVar(&c.policy, "policy", "", "policy `file` (YAML; see examples/policy.yaml) choosing each group's assignor; watched and hot-reloaded, SIGHUP re-reads it now. "+
		"assignd does not start on an invalid file; an invalid edit is rejected and the last good revision keeps serving. Empty: the embedded default policy")
	fs.IntVar(&c.shadowConcurrency, "shadow-concurrency", 1, "shadow evaluations of the policy run at once, in the background; when all are busy a shadow is skipped; 0 disables them")
	fs.IntVar(&c.shadowMaxPartitions, "shadow-max-partitions", 100_000, "skip shadow evaluation for groups with more partitions than this; 0 means no limit")
	fs.IntVar(&c.historyDecisions, "history-decisions", history.DefaultDecisionsPerGroup,
		"decisions kept in memory per group for GroupHistoryService and `assignctl groups`/`describe` (docs/observatory.md); 0 keeps no history")
	fs.IntVar(&c.historyGroups, "history-groups", history.DefaultMaxGroups,
		"groups whose decisions are kept; beyond it the least recently seen group is forgotten; 0 keeps no history")
	historyFlags(fs, &c.history)
	rolloutFlags(fs, &c.rollout)
	fs.StringVar(&c.metricsTLSCert, "metrics-tls-cert", "", "PEM certificate `file` to serve the HTTP listener (--metrics-listen: metrics, probes, console) over TLS, with --metrics-tls-key; "+
		"re-read when it changes, like --tls-cert (it may name the same files)")
	fs.StringVar(&c.metricsTLSKey, "metrics-tls-key", "", "PEM private key `file` of --metrics-tls-cert")
	fs.StringVar(&c.metricsTLSClientCA, "metrics-tls-client-ca", "", "PEM CA bundle `file`: the HTTP listener requires a client certificate signed by it (mTLS) "+
		"on every path but /healthz and /readyz, which stay open to probes; needs --metrics-tls-cert")
	fs.StringVar(&c.loadBrokers, "load-brokers", "", "comma-separated Kafka `brokers` (host:port; TLS and SASL with --load-tls*, --load-sasl-*) whose log-end offsets, sampled in the background, give "+
		"policy rules with params.load_source: kafka their partition load (docs/load-aware.md); empty reads none")
	fs.DurationVar(&c.loadInterval, "load-interval", 30*time.Second, "how often --load-brokers' (and the policy's load_clusters') log-end offsets are sampled; also the epoch of shared weight snapshots: give every replica the same")
	c.loadConn.register(fs, "load", "load brokers")
	fs.DurationVar(&c.loadMargin, "load-margin", loadsource.DefaultMargin, "with --history-brokers, how long after a sampling interval ends its shared weight snapshot waits "+
		"before replicas plan with it: time for it to reach every replica; at most twice --load-interval (docs/load-aware.md)")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	return fs
}

// noEnv lists flags that have no environment variable.
var noEnv = map[string]bool{"version": true}

// parseConfig reads args, then the environment (through lookupEnv, as
// os.LookupEnv) for flags args did not set. A variable set to the empty
// string counts: ASSIGND_METRICS_LISTEN= turns the HTTP side off.
func parseConfig(args []string, lookupEnv func(string) (string, bool), usageOut io.Writer) (config, error) {
	var c config
	fs := newFlagSet(&c)
	fs.SetOutput(usageOut)
	fs.Usage = func() { usage(fs, usageOut) }
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
	case c.maxRecvBytes < 1 || c.maxPartitions < 1 || c.maxConcurrent < 0 || c.memoryBudget < 0 || c.maxQueueWait < 0 || c.shutdownTimeout < 0 ||
		c.shadowConcurrency < 0 || c.shadowMaxPartitions < 0 || c.historyDecisions < 0 || c.historyGroups < 0:
		return errors.New("limits and timeouts must not be negative, and --max-recv-bytes and --max-partitions must be positive")
	}
	if c.loadMargin < 0 {
		return fmt.Errorf("--load-margin %s: must not be negative", c.loadMargin)
	}
	if c.loadInterval <= 0 {
		return fmt.Errorf("--load-interval %s: must be positive", c.loadInterval)
	}
	// Shared, a snapshot is planned with once its interval ended and the
	// margin passed, and a book keeps four intervals: a longer margin
	// would never plan with Kafka's load (docs/load-aware.md).
	if keep := loadsource.DefaultKeep - 2; c.history.brokers != "" && c.loadMargin > time.Duration(keep)*c.loadInterval {
		return fmt.Errorf("--load-margin %s: at most %d × --load-interval (%s) with --history-brokers, or no shared weight snapshot is ever planned with", c.loadMargin, keep, c.loadInterval)
	}
	if err := c.loadConn.validate(); err != nil {
		return err
	}
	if err := c.history.validate(); err != nil {
		return err
	}
	if c.history.brokers != "" && (c.historyDecisions == 0 || c.historyGroups == 0) {
		// Without a history there is no history log: each replica would
		// decide its staged rollouts alone (docs/staged-rollouts.md).
		return errors.New("--history-brokers shares the history and the staged rollouts' agreed step through Kafka: it needs --history-decisions and --history-groups above 0")
	}
	if _, err := parseLevel(c.logLevel); err != nil {
		return err
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return fmt.Errorf("--log-format %q: want text or json", c.logFormat)
	}
	return nil
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `assignd serves Kafka consumer-group partition assignments over gRPC
(assignd.v1.AssignmentService), with health checking, reflection, Prometheus
metrics and optional OTLP tracing.

Usage: assignd [flags]

With no flags it listens on 127.0.0.1:7070 (gRPC) and 127.0.0.1:9464 (HTTP).
Every flag can also be set with the environment variable shown; a flag on
the command line wins. Traces are exported only when OTEL_TRACES_EXPORTER,
OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; the
standard OTEL_* variables choose the exporter, protocol (http/protobuf by
default, or grpc), endpoint and headers.
SIGTERM or SIGINT shuts down gracefully; SIGHUP re-reads the --policy file.

Flags:
`)
	fs.VisitAll(func(f *flag.Flag) {
		name, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, text)
		var facts []string
		if !noEnv[f.Name] {
			facts = append(facts, "env "+envName(f.Name))
		}
		if f.DefValue != "" && f.DefValue != "false" {
			facts = append(facts, "default "+f.DefValue)
		}
		if len(facts) > 0 {
			fmt.Fprintf(w, "      (%s)\n", strings.Join(facts, ", "))
		}
	})
}
