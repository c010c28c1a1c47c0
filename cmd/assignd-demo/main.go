// Command assignd-demo shows assignd at work in a real consumer group,
// all in one process and in about fifteen seconds: it starts an in-process
// Kafka-protocol broker (franz-go's kfake), an assignd server on
// 127.0.0.1, a producer and a few franz-go consumers whose group leader
// uses assignd through the kgoassign shim. It then restarts every consumer
// in turn, stopping assignd during one restart so that the leader falls
// back to the in-process engine, and prints the rebalance timeline: who
// owned what, what moved, which rebalance was a cooperative follow-up and
// whether assignd or the fallback computed it.
//
//	go run ./cmd/assignd-demo
//	go run ./cmd/assignd-demo -members 5 -outage=false
//
// It exits non-zero if the run broke an invariant (a partition owned by
// two consumers at once, a record never consumed, a rebalance without a
// membership change).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"
)

func main() {
	cfg := defaultDemo()
	flag.IntVar(&cfg.members, "members", cfg.members, "number of consumers (1 to 20)")
	flag.IntVar(&cfg.partitions, "partitions", cfg.partitions, "partitions of the demo topic \"orders\" (the topic \"audit\" gets a third as many)")
	flag.BoolVar(&cfg.outage, "outage", cfg.outage, "stop assignd during one restart to show the in-process fallback")
	flag.DurationVar(&cfg.heartbeat, "heartbeat", cfg.heartbeat, "consumer heartbeat interval; it paces every rebalance")
	verbose := flag.Bool("v", false, "log assignd's and the consumers' own lines to stderr")
	flag.Parse()

	cfg.progress = os.Stderr
	cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if *verbose {
		cfg.logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "assignd-demo:", err)
		os.Exit(1)
	}
}
