// Command assignd-bench measures the whole Assign RPC over loopback gRPC:
// client marshalling, the server's interceptors, decoding every member's
// raw subscription, the assignment, encoding every assignment, and the
// response's way back. It serves assignd on 127.0.0.1 with the production
// configuration (Prometheus metrics, call logging to a discarded writer,
// the default policy) and reports:
//
//   - the floor: an empty unary call (grpc.health.v1 Check) and
//     ListAssignors, measured in the same run;
//   - a 10-member, 3 × 32-partition cooperative-sticky group in raw-metadata
//     form, in steady state (every member owns what it was last given),
//     with the full response and with ASSIGNMENT_VIEW_ENCODED: p50, p99 and
//     calls per second, sequential and with parallel callers;
//   - the 1,000,000-partition group (500 topics × 2,000 partitions, 2,000
//     members, equal subscriptions, first assignment) end to end.
//
// The server runs in a process of its own by default, as assignd and the
// group leaders that call it do in production; -server inprocess serves it
// in the benchmark's own process instead (client and server then share one
// Go runtime and its scheduler, which on a 2-CPU machine changes the
// figures a lot), and -server HOST:PORT measures an assignd already
// running there (what it answers then depends on its policy).
//
// With -full-view N it compares instead, over the same path, assignd with
// a server of the same API backed by franz-go's balancer ([franzService])
// on the 1,000,000-partition group as Java and Python leaders send it
// (the explicit member form, ASSIGNMENT_VIEW_FULL): the first assignment,
// one member leaving and one joining, in N alternating runs, and each
// server's RSS some seconds after its last call.
//
// Usage: go run ./cmd/assignd-bench [-server process,inprocess] [-calls 5000] [-big-rounds 3] [-big=false]
//
//	go run ./cmd/assignd-bench -full-view 5 [-full-view-servers process,franz-go]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

func main() {
	if os.Getenv(serveEnv) != "" {
		if err := serveChild(); err != nil {
			fmt.Fprintln(os.Stderr, "assignd-bench server:", err)
			os.Exit(1)
		}
		return
	}
	servers := flag.String("server", "process,inprocess",
		"comma-separated servers to measure, one after the other: process (a child process), inprocess, or HOST:PORT of a running assignd")
	calls := flag.Int("calls", 5000, "calls per small-call measurement")
	big := flag.Bool("big", true, "also run the 1,000,000-partition group (against the first server)")
	bigRounds := flag.Int("big-rounds", 3, "calls of the 1,000,000-partition group")
	parallel := flag.Int("parallel", runtime.GOMAXPROCS(0)*4, "concurrent callers in the throughput run")
	fullView := flag.Int("full-view", 0, "instead: this many alternating runs of the explicit-form, full-view 1,000,000-partition cases A, B and B2 against -full-view-servers")
	fullViewServers := flag.String("full-view-servers", "process,franz-go",
		"servers of -full-view, in call order, the last the reference of the ratios: process (assignd in a child process), franz-go (the same API backed by franz-go's balancer, in a child process), HOST:PORT or HOST:PORT@PID (a running server; with its PID, its RSS is reported)")
	stormRun := flag.Bool("storm", false, "instead: the storm (5,000 groups within a second, then 10,000 over 1 and 64 connections) against assignd, and the sustained capacity of assignd and the franz-go peer, each in a child process")
	fleet := flag.Int("fleet", 0, "instead: this many groups of a fleet's sizes, each rebalancing as often as the history keeps decisions, then assignd's RSS -rss-wait later")
	rssWait := flag.Duration("rss-wait", 10*time.Second, "how long after a server's last -full-view call its RSS is read")
	flag.Parse()
	fmt.Printf("assignd-bench: %s/%s, %d CPUs, GOMAXPROCS %d, %s, loopback gRPC (plaintext)\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
	if *stormRun || *fleet > 0 {
		var err error
		if *fleet > 0 {
			err = runFleet(context.Background(), *fleet, *rssWait, os.Stdout)
		}
		if *stormRun && err == nil {
			err = runStorm(context.Background(), defaultStorm(), os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "assignd-bench:", err)
			os.Exit(1)
		}
		return
	}
	if *fullView > 0 {
		if err := runFullView(context.Background(), os.Stdout, *fullViewServers, *fullView, *rssWait); err != nil {
			fmt.Fprintln(os.Stderr, "assignd-bench:", err)
			os.Exit(1)
		}
		return
	}
	for i, s := range strings.Split(*servers, ",") {
		if err := run(s, *calls, *big && i == 0, *bigRounds, *parallel, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "assignd-bench:", err)
			os.Exit(1)
		}
	}
}

func run(where string, calls int, big bool, bigRounds, parallel int, out io.Writer) (err error) {
	ctx := context.Background()
	addr := where
	switch where {
	case "process", "inprocess":
		srv, err := startServer(ctx, where == "inprocess")
		if err != nil {
			return err
		}
		defer func() {
			if stopErr := srv.stop(); err == nil {
				err = stopErr
			}
		}()
		addr = srv.addr
		fmt.Fprintf(out, "\nserver: %s (%s)\n", where, addr)
	default:
		fmt.Fprintf(out, "\nserver: running at %s\n", addr)
	}

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(server.DefaultMaxRecvBytes)))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := assigndv1.NewAssignmentServiceClient(conn)
	health := healthpb.NewHealthClient(conn)

	full, err := smallRequest()
	if err != nil {
		return err
	}
	encoded := cloneWithView(full, assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED)
	emptyCall := func(ctx context.Context) error {
		_, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
	listCall := func(ctx context.Context) error {
		_, err := client.ListAssignors(ctx, &assigndv1.ListAssignorsRequest{})
		return err
	}
	assignCall := func(req *assigndv1.AssignRequest) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := client.Assign(ctx, req)
			return err
		}
	}
	cases := []func(context.Context) error{emptyCall, listCall, assignCall(full), assignCall(encoded)}
	// Warm up connections, caches and the allocation-heavy first calls,
	// then measure each case in the same run.
	for _, f := range cases {
		if _, err := sequential(ctx, calls/10+1, f); err != nil {
			return err
		}
	}
	// The cases alternate in blocks, so that load from elsewhere on the
	// machine weighs on each of them alike.
	seq, err := interleaved(ctx, 10, calls, cases...)
	if err != nil {
		return err
	}
	floor := seq[0]
	floorPar, err := concurrent(ctx, calls, parallel, emptyCall)
	if err != nil {
		return err
	}
	assignPar, err := concurrent(ctx, calls, parallel, assignCall(full))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "small calls, %d each, sequential (one caller):\n", calls)
	printRow(out, "empty unary call (health Check)", floor, floor)
	printRow(out, "ListAssignors", seq[1], floor)
	printRow(out, fmt.Sprintf("Assign 10 members, 3x32 coop, raw metadata (%d B req)", protoSize(full)), seq[2], floor)
	printRow(out, "  the same, view ENCODED", seq[3], floor)
	fmt.Fprintf(out, "throughput with %d concurrent callers:\n", parallel)
	printRow(out, "empty unary call (health Check)", floorPar, floorPar)
	printRow(out, "Assign 10 members, 3x32 coop", assignPar, floorPar)

	if !big {
		return nil
	}
	fmt.Fprintf(out, "1,000,000 partitions (500 topics x 2000, 2000 members, equal subscriptions, first assignment, raw metadata v3):\n")
	bigReq, err := bigRequest()
	if err != nil {
		return err
	}
	if err := runBig(ctx, out, client, bigReq, bigRounds); err != nil {
		return err
	}
	return runBig(ctx, out, client, cloneWithView(bigReq, assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED), bigRounds)
}
