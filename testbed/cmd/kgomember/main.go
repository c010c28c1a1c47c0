// Command kgomember is one franz-go consumer-group member whose
// assignments, when it leads, come from assignd through kgoassign. The
// Java end-to-end test (client/java) runs it beside Java consumers in one
// cooperative-sticky group on a real broker, and reads what it prints:
//
//	assigned TOPIC P,P,...
//	revoked TOPIC P,P,...
//	lost TOPIC P,P,...
//	record TOPIC P OFFSET
//	closed
//
// one line per event, written from the callback itself (before kgo goes on),
// so the test's timeline of owners stays causal. It consumes from the
// earliest offset, commits what it polled (kgo's autocommit, which also
// commits before a revoke) and exits cleanly on SIGTERM or when its
// standard input closes, leaving the group unless it is a static member.
//
// Usage:
//
//	kgomember -brokers HOST:PORT -group G -topic T -assignd HOST:PORT [-instance ID]
//	kgomember -brokers HOST:PORT -group G -topic T -server-side
//
// With -server-side it is a member of a KIP-848 group (the broker
// assigns), with kgo's [kgo.ServerSideBalancer]: franz-go then names the
// server assignor after its first balancer, "uniform" for the sticky one,
// and cannot name another (kgo's manage848), so it joins a group whose
// assignor the other members choose.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kgomember:", err)
		os.Exit(1)
	}
}

// out serialises lines from kgo's callbacks and the poll loop.
type out struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *out) line(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.w, format+"\n", args...)
	o.w.Flush()
}

func (o *out) partitions(event string, m map[string][]int32) {
	topics := make([]string, 0, len(m))
	for t := range m {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for _, t := range topics {
		ps := append([]int32(nil), m[t]...)
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = fmt.Sprint(p)
		}
		o.line("%s %s %s", event, t, strings.Join(s, ","))
	}
}

func run() error {
	brokers := flag.String("brokers", "", "seed `host:port`")
	group := flag.String("group", "", "consumer group")
	topic := flag.String("topic", "", "topic to consume")
	target := flag.String("assignd", "", "assignd gRPC `target`")
	instance := flag.String("instance", "", "group.instance.id (static membership, KIP-345); empty: dynamic")
	serverSide := flag.Bool("server-side", false, "join on the KIP-848 protocol, the broker assigning (no -assignd)")
	flag.Parse()
	if *brokers == "" || *group == "" || *topic == "" || (*target == "") != *serverSide {
		return fmt.Errorf("-brokers, -group, -topic and either -assignd or -server-side are required")
	}
	balancer := []kgo.Opt{kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.ServerSideBalancer()}
	if !*serverSide {
		c, err := client.New(*target, client.WithTimeout(2*time.Second))
		if err != nil {
			return err
		}
		defer c.Close()
		balancer = []kgo.Opt{kgo.Balancers(kgoassign.CooperativeSticky(c))}
	}

	o := &out{w: bufio.NewWriter(os.Stdout)}
	opts := []kgo.Opt{
		kgo.SeedBrokers(*brokers),
		kgo.ConsumerGroup(*group),
		kgo.ConsumeTopics(*topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// As the Java members of the test: quick heartbeats, so rebalances start quickly.
		kgo.HeartbeatInterval(500 * time.Millisecond),
		kgo.SessionTimeout(10 * time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { o.partitions("assigned", m) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { o.partitions("revoked", m) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { o.partitions("lost", m) }),
	}
	opts = append(opts, balancer...)
	if *instance != "" {
		opts = append(opts, kgo.InstanceID(*instance))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		// The test closing our stdin (or dying) also stops us: nothing outlives it.
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) { o.line("record %s %d %d", r.Topic, r.Partition, r.Offset) })
	}
	// Commit what was polled, then leave (dynamic) or just go (static); kgo
	// runs the revoke callback on the way out.
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = cl.CommitUncommittedOffsets(cctx)
	cl.CloseAllowingRebalance()
	o.line("closed")
	return nil
}
