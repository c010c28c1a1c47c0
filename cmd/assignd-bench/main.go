// Command assignd-bench measures the whole Assign RPC over loopback gRPC:
// client marshalling, the server's interceptors, decoding every member's
// raw subscription, the assignment, encoding every assignment, and the
// response's way back. It serves assignd in-process on 127.0.0.1 with the
// production configuration (Prometheus metrics, call logging to a discarded
// writer) and reports:
//
//   - the floor: an empty unary call (grpc.health.v1 Check) and
//     ListAssignors, measured in the same run;
//   - a 10-member, 3 × 32-partition cooperative-sticky group in raw-metadata
//     form, in steady state (every member owns what it was last given):
//     p50, p99 and calls per second, sequential and with parallel callers;
//   - the 1,000,000-partition group (500 topics × 2,000 partitions, 2,000
//     members, equal subscriptions, first assignment) end to end.
//
// Usage: go run ./cmd/assignd-bench [-calls 5000] [-big-rounds 3] [-big=false]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

func main() {
	calls := flag.Int("calls", 5000, "calls per small-call measurement")
	big := flag.Bool("big", true, "also run the 1,000,000-partition group")
	bigRounds := flag.Int("big-rounds", 3, "calls of the 1,000,000-partition group")
	parallel := flag.Int("parallel", runtime.GOMAXPROCS(0)*4, "concurrent callers in the throughput run")
	flag.Parse()
	if err := run(*calls, *big, *bigRounds, *parallel, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "assignd-bench:", err)
		os.Exit(1)
	}
}

func run(calls int, big bool, bigRounds, parallel int, out io.Writer) error {
	ctx := context.Background()
	tel, err := server.NewTelemetry(ctx, "bench")
	if err != nil {
		return err
	}
	defer tel.Shutdown(ctx)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(server.DefaultSelector(), logger,
		server.WithMeterProvider(tel.MeterProvider()), server.WithTracerProvider(tel.TracerProvider()))
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Shutdown(ctx)

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(server.DefaultMaxRecvBytes)))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := assigndv1.NewAssignmentServiceClient(conn)
	health := healthpb.NewHealthClient(conn)

	fmt.Fprintf(out, "assignd-bench: %s/%s, GOMAXPROCS %d, %s, loopback gRPC (plaintext)\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())

	small, err := smallRequest()
	if err != nil {
		return err
	}
	emptyCall := func(ctx context.Context) error {
		_, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
	listCall := func(ctx context.Context) error {
		_, err := client.ListAssignors(ctx, &assigndv1.ListAssignorsRequest{})
		return err
	}
	assignCall := func(ctx context.Context) error {
		_, err := client.Assign(ctx, small)
		return err
	}
	// Warm up connections, caches and the JIT-free but allocation-heavy
	// first calls, then measure each case in the same run.
	for _, f := range []func(context.Context) error{emptyCall, listCall, assignCall} {
		if _, err := sequential(ctx, calls/10+1, f); err != nil {
			return err
		}
	}
	// The cases alternate in blocks, so that load from elsewhere on the
	// machine weighs on each of them alike.
	seq, err := interleaved(ctx, 10, calls, emptyCall, listCall, assignCall)
	if err != nil {
		return err
	}
	floor, list, assign := seq[0], seq[1], seq[2]
	floorPar, err := concurrent(ctx, calls, parallel, emptyCall)
	if err != nil {
		return err
	}
	assignPar, err := concurrent(ctx, calls, parallel, assignCall)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "small calls, %d each, sequential (one caller):\n", calls)
	printRow(out, "empty unary call (health Check)", floor, floor)
	printRow(out, "ListAssignors", list, floor)
	printRow(out, fmt.Sprintf("Assign 10 members, 3x32 coop, raw metadata (%d B req)", protoSize(small)), assign, floor)
	fmt.Fprintf(out, "\nthroughput with %d concurrent callers:\n", parallel)
	printRow(out, "empty unary call (health Check)", floorPar, floorPar)
	printRow(out, "Assign 10 members, 3x32 coop", assignPar, floorPar)

	if !big {
		return nil
	}
	fmt.Fprintf(out, "\n1,000,000 partitions (500 topics x 2000, 2000 members, equal subscriptions, first assignment, raw metadata v3):\n")
	bigReq, err := bigRequest()
	if err != nil {
		return err
	}
	return runBig(ctx, out, client, bigReq, bigRounds)
}
