package server_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/internal/kafkaconn"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/testbed/loadtopic"
)

// snapshotReplica is one in-process assignd reading load from Kafka and
// sharing its weight snapshots through the history topic.
type snapshotReplica struct {
	src  *loadsource.Source
	book *loadsource.Book
	ts   *testServer
}

func startSnapshotReplica(t *testing.T, name string, brokers []string, interval, margin time.Duration) *snapshotReplica {
	t.Helper()
	book := loadsource.NewBook(loadsource.WithMargin(margin))
	// The test samples at moments in the past, so its records are
	// written after their epoch's margin: take them without their
	// timestamps (Apply), which would refuse them as late.
	b, err := bus.New(kafkaconn.Config{Brokers: strings.Join(brokers, ",")}, bus.WithTopic("snapshot-history"),
		bus.WithKgoOptions(kgo.MetadataMinAge(100*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	book.Share(loadsource.BusPublisher(b, nil), name)
	b.Subscribe(loadsource.BusKind, func(r bus.Record) error {
		r.Time = time.Time{} // Apply, not ApplyAt
		return book.ApplyRecord(r)
	})
	b.Start()
	t.Cleanup(b.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	src := loadsource.New(kadm.NewClient(cl).ListEndOffsets, loadsource.WithInterval(interval),
		loadsource.WithStaleAfter(time.Minute), loadsource.WithBook(book, ""))
	return &snapshotReplica{src: src, book: book, ts: startServer(t, kafkaSelector{}, server.WithLoadSource(src))}
}

// Three replicas share one history topic and sample one cluster at
// different moments, with records produced in between: their own rates
// differ, yet they hand a group byte-identical assignments, planned with
// the snapshot of the first replica whose record reached the topic, and
// name the same snapshot.
func TestSharedWeightSnapshotsAcrossReplicas(t *testing.T) {
	events := loadtopic.Start(t, "events", 6)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	const interval, margin = time.Second, 300 * time.Millisecond
	rs := make([]*snapshotReplica, 3)
	for i := range rs {
		rs[i] = startSnapshotReplica(t, fmt.Sprintf("r%d", i), events.Seeds, interval, margin)
	}
	// Sample times in the recent past, so that the epoch sampled is past
	// the margin at once: epoch e0 gives offsets, e1 the rates.
	e0 := time.Now().Truncate(interval).Add(-5 * interval)
	e1 := e0.Add(interval)
	for i, r := range rs {
		_, _, _ = r.src.SnapshotWeights([]string{"events"}, e0) // ask for the topic
		if err := r.src.Sample(ctx, e0.Add(time.Duration(i)*100*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	// Between the replicas' second samples the hot spot moves, so each
	// replica measures other rates.
	for i, r := range rs {
		hot := make([]int, 6)
		for p := range hot {
			hot[p] = 2
		}
		hot[2*i] = 60
		events.Produce(ctx, t, hot...)
		if err := r.src.Sample(ctx, e1.Add(time.Duration(100+300*i)*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	var local [][]float64
	for _, r := range rs {
		ws, err := r.src.Weights([]string{"events"}, e1.Add(900*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		local = append(local, ws[0].Weights)
	}
	if slices.Equal(local[0], local[1]) || slices.Equal(local[1], local[2]) {
		t.Fatalf("the replicas measured the same rates %v: the test shows nothing", local)
	}
	// Every replica reads the epoch back from the topic (bounded wait).
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		read := 0
		for _, r := range rs {
			if r.book.Epochs("")[e1.UTC()] == 1 {
				read++
			}
		}
		if read == len(rs) {
			break
		}
		if time.Since(start) > 15*time.Second {
			t.Fatalf("%d of %d replicas read epoch %s back from the history topic", read, len(rs), e1)
		}
	}

	g := assigntest.NewGroup().Topic("events", 6).Member("a", "events").Member("b", "events").Member("c", "events").Build()
	req, _ := requestFor(t, g, assign.NameCooperativeSticky)
	req.GroupId = "shared"
	var first []byte
	for i, r := range rs {
		resp, err := r.ts.client.Assign(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetWeightSource() != assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA {
			t.Fatalf("r%d: source %v, warnings %q", i, resp.GetWeightSource(), resp.GetWarnings())
		}
		if want := loadsource.SnapshotID("", e1.UnixMilli()); resp.GetLoadSnapshot() != want {
			t.Fatalf("r%d: snapshot %q, want %q", i, resp.GetLoadSnapshot(), want)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
			t.Logf("snapshot %s, weights %s, load %v", resp.GetLoadSnapshot(), resp.GetWeightSnapshot(), resp.GetLoad())
			continue
		}
		if !bytes.Equal(b, first) {
			t.Fatalf("r%d answered differently from r0:\n%v", i, resp)
		}
	}
}
