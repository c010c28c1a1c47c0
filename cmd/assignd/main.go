// Command assignd serves Kafka consumer-group partition assignments over
// gRPC. Run it with no arguments for the embedded defaults; `assignd
// --help` lists every flag and its ASSIGND_* environment variable.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/assignd/assignd/internal/buildinfo"
	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/loadsource"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
}

// run is assignd's main, returning the exit status: 0 after a clean
// shutdown, 1 when serving failed, 2 for bad configuration.
func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, lookupEnv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "assignd: %v\n", err)
		return 2
	}
	if cfg.version {
		fmt.Fprintln(stdout, "assignd", buildinfo.Read())
		return 0
	}
	logger := newLogger(cfg, stderr)
	// The OpenTelemetry SDK's own errors (a failed trace export, say) go
	// to assignd's log, so that JSON logs stay JSON; the default handler
	// prints them with the standard log package.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("opentelemetry", "error", err)
	}))
	if err := serve(ctx, cfg, logger); err != nil {
		logger.Error("assignd failed", "error", err)
		return 1
	}
	return 0
}

// serve runs the gRPC and HTTP servers until ctx ends, then shuts them
// down gracefully.
func serve(ctx context.Context, cfg config, logger *slog.Logger) (err error) {
	memoryLimit := setMemoryLimit(logger)
	memoryBudget := cfg.memoryBudget
	if memoryBudget == 0 {
		// The history's bound is held for the process's life: the calls
		// share what is left of the limit.
		var history int64
		if cfg.history.on() {
			history = cfg.history.maxBytes
		}
		memoryBudget = server.DefaultMemoryBudget(history)
	}
	tel, err := server.NewTelemetry(ctx, version())
	if err != nil {
		return err
	}
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err = errors.Join(err, tel.Shutdown(shutdownCtx))
	}()
	tlsCfg, err := tlsConfig(cfg, logger)
	if err != nil {
		return err
	}
	httpTLS, err := httpTLSConfig(cfg, logger)
	if err != nil {
		return err
	}
	// The weight snapshots the load sources plan with; shared through the
	// history topic when there is one (docs/load-aware.md).
	book := loadsource.NewBook(loadsource.WithMargin(cfg.load.margin), loadsource.WithEpochInterval(cfg.load.interval))
	if err := book.Instrument(tel.MeterProvider()); err != nil {
		return err
	}
	var hist *history.Store
	var histBus *bus.Bus
	if cfg.history.on() {
		h, hb, closeHistory, err := newHistory(cfg.history, logger, tel.MeterProvider(), book)
		if err != nil {
			return err
		}
		// Deferred before the policy's Close: shadow runs still finishing
		// record into it, and then it flushes to Kafka.
		defer closeHistory()
		hist, histBus = h, hb
	}
	src, err := newPolicy(ctx, cfg, logger, tel.MeterProvider(), hist)
	if err != nil {
		return err
	}
	// Deferred after the server's Shutdown below: Close waits for shadow
	// evaluations the last calls started, before telemetry is flushed.
	defer func() { err = errors.Join(err, src.Close()) }()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	hupCtx, stopHUP := context.WithCancel(ctx)
	defer stopHUP()
	go reloadOnSignal(hupCtx, src, hup, logger, cfg.policy)
	rollouts, err := startRollouts(cfg.rollout, src, hist, histBus, cfg.history.replica, logger, tel.MeterProvider())
	if err != nil {
		return err
	}
	if histBus != nil {
		histBus.Start() // every owner of a kind has subscribed
	}
	defer func() { err = errors.Join(err, rollouts.Close()) }()

	maxConcurrent := cfg.maxConcurrent
	if maxConcurrent == 0 {
		maxConcurrent = runtime.GOMAXPROCS(0)
	}
	opts := []server.Option{
		server.WithMaxRecvBytes(cfg.maxRecvBytes),
		server.WithMaxConcurrentAssigns(maxConcurrent),
		server.WithMaxPartitions(cfg.maxPartitions),
		server.WithMemoryBudget(memoryBudget),
		server.WithMaxQueueWait(cfg.maxQueueWait),
		server.WithQueueTarget(cfg.queueTarget),
		server.WithMeterProvider(tel.MeterProvider()),
		server.WithTracerProvider(tel.TracerProvider()),
		server.WithExplainer(src),
		server.WithPolicyParser(parseCandidate),
		server.WithRolloutStatus(rollouts),
	}
	if tlsCfg != nil {
		opts = append(opts, server.WithTLS(tlsCfg))
	}
	if hist != nil {
		opts = append(opts, server.WithHistory(hist))
	}
	if cfg.load.kafka.conn.Brokers != "" {
		load, stop, err := startLoadSource(ctx, cfg.load, logger, book)
		if err != nil {
			return err
		}
		defer stop()
		opts = append(opts, server.WithLoadSource(load))
	}
	// The policy's load_clusters, sampled from the first call of a rule
	// that names one (docs/load-aware.md).
	clusters := loadsource.NewClusters(book, func() map[string]kafkaconn.Config { return src.Policy().LoadClusters() },
		loadsource.WithSourceOptions(loadsource.WithInterval(cfg.load.interval)),
		loadsource.WithReport(func(cluster string, err error) { logger.Warn("load sample", "cluster", cluster, "err", err) }))
	defer clusters.Close()
	opts = append(opts, server.WithLoadClusters(clusters))
	srv, err := server.New(src, logger, opts...)
	if err != nil {
		return err
	}

	lis, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	var ops *http.Server
	var opsLis net.Listener
	if cfg.metricsListen != "" {
		if opsLis, err = net.Listen("tcp", cfg.metricsListen); err != nil {
			lis.Close()
			return fmt.Errorf("--metrics-listen: %w", err)
		}
		handler := srv.OpsHandler(tel.MetricsHandler())
		switch {
		case httpTLS != nil:
			opsLis = tls.NewListener(opsLis, httpTLS)
			if cfg.metricsTLSClientCA != "" {
				handler = requireClientCert(handler)
			}
		case !isLoopback(cfg.metricsListen):
			logger.Warn("the HTTP listener is bound beyond loopback in plaintext: whoever reaches it sees the console's group, member and caller ids; set --metrics-tls-cert and --metrics-tls-client-ca",
				"metrics_listen", cfg.metricsListen)
		}
		ops = &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	}

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(lis) }()
	metricsAddr := ""
	if ops != nil {
		metricsAddr = opsLis.Addr().String()
		go func() {
			if err := ops.Serve(opsLis); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("metrics server: %w", err)
			}
		}()
	}
	logger.Info("assignd serving", "grpc_addr", lis.Addr().String(), "metrics_addr", metricsAddr,
		"tls", tlsCfg != nil, "mtls", cfg.tlsClientCA != "", "metrics_tls", httpTLS != nil, "metrics_mtls", cfg.metricsTLSClientCA != "", "tracing", tel.Tracing(),
		"max_concurrent_assigns", maxConcurrent, "memory_limit", memoryLimit, "memory_budget", memoryBudget, "policy_file", src.Policy().File(), "policy_revision", src.Policy().Revision(),
		"version", version())

	select {
	case <-ctx.Done():
		logger.Info("shutting down", "grace", cfg.shutdownTimeout)
	case err = <-errc:
		logger.Error("server stopped", "error", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.shutdownTimeout)
	defer cancel()
	shutdownErr := srv.Shutdown(shutdownCtx)
	if ops != nil {
		// The HTTP side stays up during the gRPC drain so that /readyz
		// reports 503 and /metrics can be scraped one last time.
		shutdownErr = errors.Join(shutdownErr, ops.Shutdown(shutdownCtx))
	}
	if shutdownErr != nil {
		logger.Warn("shutdown was not clean", "error", shutdownErr)
	} else {
		logger.Info("stopped")
	}
	return err
}

// version is the version the binary was built from (see [buildinfo.Info]).
func version() string { return buildinfo.Read().Version }
