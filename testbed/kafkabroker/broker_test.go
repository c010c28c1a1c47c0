package kafkabroker_test

import (
	"context"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/testbed/kafkabroker"
)

// needBroker runs the test with ASSIGND_BROKER=kafka, as the real-broker
// step of scripts/test.sh does; then a missing java or missing jars fail
// it. Otherwise it is skipped, as every real-broker test is.
func needBroker(t *testing.T) {
	t.Helper()
	if os.Getenv("ASSIGND_BROKER") != "kafka" {
		t.Skip("starts a real Kafka broker: set ASSIGND_BROKER=kafka (and run scripts/kafka-jars.sh)")
	}
	if err := kafkabroker.Available(); err != nil {
		t.Fatal(err)
	}
}

// TestBrokerServesAndStops starts a tapped broker, creates a topic,
// produces and consumes through it, sees the requests in the tap, and
// checks that Stop leaves no process and no directory behind.
func TestBrokerServesAndStops(t *testing.T) {
	needBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := kafkabroker.Start(ctx, kafkabroker.WithTap())
	if err != nil {
		t.Fatal(err)
	}
	b.StopOnCleanup(t)

	var mu sync.Mutex
	seen := map[int16]int{}
	var clients []string
	stop, err := b.Observe(func(r kafkabroker.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen[r.Body.Key()]++
		clients = append(clients, r.ClientID)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	if err := kafkabroker.CreateTopics(ctx, b.Addr(), map[string]int32{"t": 3}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ClientID("probe"),
		kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	fs := cl.PollFetches(ctx)
	if err := fs.Err0(); err != nil {
		t.Fatal(err)
	}
	if n := fs.NumRecords(); n != 1 {
		t.Fatalf("consumed %d records, want 1", n)
	}
	mu.Lock()
	if seen[kmsg.Produce.Int16()] == 0 || seen[kmsg.Fetch.Int16()] == 0 || seen[kmsg.CreateTopics.Int16()] == 0 {
		t.Errorf("the tap saw %v: no produce, fetch or create-topics request", seen)
	}
	var probe bool
	for _, c := range clients {
		probe = probe || c == "probe"
	}
	if !probe {
		t.Error("the tap never saw client id probe")
	}
	mu.Unlock()

	if err := kafkabroker.DeleteTopics(ctx, b.Addr(), "t", "never-created"); err != nil {
		t.Error(err)
	}
	cl.Close()
	pid, dir := b.PID(), b.Dir()
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	<-b.Done()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the broker's process %d is still there after Stop", pid)
	}
	if os.Getenv("ASSIGND_KAFKA_KEEP") != "1" {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the broker's directory %s is still there after Stop (%v)", dir, err)
		}
	}
}
