package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"time"

	"google.golang.org/grpc"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
)

// serveEnv, set in the environment of this program, makes it serve
// instead of measuring: assignd (assigndKind) or the franz-go peer
// (franzKind). The benchmark starts itself again this way to measure a
// server in its own process, as deployed.
const serveEnv = "ASSIGND_BENCH_SERVE"

const (
	assigndKind = "1"
	franzKind   = "franz-go"
)

// benchServer is a running server the benchmark measures.
type benchServer struct {
	addr string
	pid  int // of a child process; 0 in this process
	stop func() error
}

// startServer serves assignd with the production configuration
// (Prometheus metrics, the call log to a discarded writer, the default
// policy) on a loopback port: in this process (inProcess), where the
// client and the server share one Go runtime and its two Ps, or in a
// child process, as a leader and assignd run in production.
func startServer(ctx context.Context, inProcess bool) (*benchServer, error) {
	if inProcess {
		return serveInProcess(ctx)
	}
	return startChild(ctx, assigndKind)
}

// startChild serves kind (see serveEnv) in a child process.
func startChild(ctx context.Context, kind string) (*benchServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the server process: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), serveEnv+"="+kind)
	cmd.Stderr = os.Stderr
	// The child serves until its stdin closes, so that it never outlives
	// the benchmark, whatever way the benchmark ends.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server process: %w", err)
	}
	stop := func() error {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			return errors.New("the server process did not stop within 10s")
		}
	}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			return nil, errors.Join(errors.New("the server process exited before serving"), stop())
		}
		return &benchServer{addr: a, pid: cmd.Process.Pid, stop: stop}, nil
	case <-time.After(30 * time.Second):
		return nil, errors.Join(errors.New("the server process did not start within 30s"), stop())
	}
}

func serveInProcess(ctx context.Context) (*benchServer, error) {
	srv, shutdown, err := newServer(ctx)
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, shutdown())
	}
	go func() { _ = srv.Serve(lis) }()
	return &benchServer{addr: lis.Addr().String(), stop: shutdown}, nil
}

// newServer builds assignd as cmd/assignd does by default, the group
// history in this process included.
func newServer(ctx context.Context) (*server.Server, func() error, error) {
	tel, err := server.NewTelemetry(ctx, "bench")
	if err != nil {
		return nil, nil, err
	}
	h, err := history.New()
	if err != nil {
		return nil, nil, errors.Join(err, tel.Shutdown(ctx))
	}
	reportHeapOnSignal(h)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(selection.Default(), logger, server.WithHistory(h),
		server.WithMeterProvider(tel.MeterProvider()), server.WithTracerProvider(tel.TracerProvider()))
	if err != nil {
		return nil, nil, errors.Join(err, tel.Shutdown(ctx))
	}
	shutdown := func() error {
		return errors.Join(srv.Shutdown(context.Background()), tel.Shutdown(context.Background()))
	}
	return srv, shutdown, nil
}

// profileEnv, set beside serveEnv, names a file the child writes a CPU
// profile of its whole life to, with its kind appended (.1 for assignd).
const profileEnv = "ASSIGND_BENCH_CPUPROFILE"

// serveChild is the child process: it serves on a loopback port, writes
// the address as its first line on stdout and stops when stdin closes.
func serveChild() error {
	ctx := context.Background()
	if path := os.Getenv(profileEnv); path != "" {
		f, err := os.Create(path + "." + os.Getenv(serveEnv))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var serve func(net.Listener) error
	var shutdown func() error
	if os.Getenv(serveEnv) == franzKind {
		g := grpc.NewServer(grpc.MaxRecvMsgSize(server.DefaultMaxRecvBytes))
		assigndv1.RegisterAssignmentServiceServer(g, franzService{})
		serve, shutdown = g.Serve, func() error { g.Stop(); return nil }
	} else {
		srv, stop, err := newServer(ctx)
		if err != nil {
			return err
		}
		serve, shutdown = srv.Serve, stop
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return errors.Join(err, shutdown())
	}
	served := make(chan error, 1)
	go func() { served <- serve(lis) }()
	fmt.Println(lis.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return errors.Join(shutdown(), <-served)
}
