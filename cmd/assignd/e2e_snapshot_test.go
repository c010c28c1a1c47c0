package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/loadtopic"
)

// Two assignd processes read load from one Kafka cluster (kfake) while
// records are produced, each sampling at its own moments, and share their
// weight snapshots through a history topic on another cluster: once both
// plan from Kafka, answers that name the same snapshot are byte-identical.
func TestBinarySharedWeightSnapshots(t *testing.T) {
	assignd, _ := binaries(t)
	data := loadtopic.Start(t, "events", 4)
	hist, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer hist.Close()
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, policy, `version: 1
rules:
  - name: load
    match: {protocols: [cooperative-sticky]}
    assignor: load-sticky@1
    params: {load_source: kafka}
`)
	env := func(replica string) []string {
		return []string{"ASSIGND_POLICY=" + policy, "ASSIGND_HISTORY_BROKERS=" + hist.ListenAddrs()[0], "ASSIGND_HISTORY_REPLICA=" + replica,
			"ASSIGND_LOAD_BROKERS=" + data.Seeds[0], "ASSIGND_LOAD_INTERVAL=500ms", "ASSIGND_LOAD_MARGIN=500ms"}
	}
	a := startAssignd(t, assignd, env("replica-a"))
	defer a.stop(t)
	// Half an interval apart, so that the replicas sample at other moments.
	time.Sleep(250 * time.Millisecond)
	b := startAssignd(t, assignd, env("replica-b"))
	defer b.stop(t)

	// Produce in the background: partition 0 hot, the others cold, with
	// bursts so that the replicas' own samples differ.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pctx, stopProducing := context.WithCancel(ctx)
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		for i := 0; pctx.Err() == nil; i++ {
			_ = data.Producer.ProduceSync(pctx, data.Records(5+(i%7)*10, 1, 1, 1)...).FirstErr()
			select {
			case <-pctx.Done():
			case <-time.After(37 * time.Millisecond):
			}
		}
	}()
	defer func() { stopProducing(); <-produced }()

	req := &assigndv1.AssignRequest{GroupId: "orders", GenerationId: 1, ProtocolName: "cooperative-sticky", LeaderId: "m1",
		Topics:  []*assigndv1.Topic{{Name: "events", PartitionCount: 4}},
		Members: []*assigndv1.Member{{MemberId: "m1", Topics: []string{"events"}}, {MemberId: "m2", Topics: []string{"events"}}}}
	ca, cb := dialProcess(t, a), dialProcess(t, b)
	agreed := 0
	var last string
	for deadline := time.Now().Add(40 * time.Second); agreed < 3; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the replicas agreed %d times in 40 s; last: %s", agreed, last)
		}
		ra, err := ca.Assign(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := cb.Assign(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		last = ra.GetLoadSnapshot() + " / " + rb.GetLoadSnapshot() + " " + strings.Join(append(ra.GetWarnings(), rb.GetWarnings()...), "; ")
		if ra.GetWeightSource() != assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA || rb.GetWeightSource() != assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA ||
			ra.GetLoadSnapshot() != rb.GetLoadSnapshot() {
			continue // not sampled yet, or the two calls straddled an epoch's margin
		}
		ba, _ := proto.MarshalOptions{Deterministic: true}.Marshal(ra)
		bb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(rb)
		if !bytes.Equal(ba, bb) {
			t.Fatalf("snapshot %s: the replicas answered differently:\n%v\n%v", ra.GetLoadSnapshot(), ra, rb)
		}
		agreed++
	}
}

// A policy rule names a load cluster (load_clusters): assignd samples it
// from the rule's first call and plans the group with its load, naming the
// cluster's snapshot.
func TestBinaryLoadCluster(t *testing.T) {
	assignd, _ := binaries(t)
	data := loadtopic.Start(t, "events", 4)
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, policy, `version: 1
load_clusters:
  east: {brokers: [`+data.Seeds[0]+`]}
rules:
  - name: east
    match: {protocols: [cooperative-sticky]}
    assignor: load-sticky@1
    params: {load_source: kafka, load_cluster: east}
`)
	p := startAssignd(t, assignd, []string{"ASSIGND_POLICY=" + policy, "ASSIGND_LOAD_INTERVAL=200ms"})
	defer p.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := &assigndv1.AssignRequest{GroupId: "orders", GenerationId: 1, ProtocolName: "cooperative-sticky", LeaderId: "m1",
		Topics:  []*assigndv1.Topic{{Name: "events", PartitionCount: 4}},
		Members: []*assigndv1.Member{{MemberId: "m1", Topics: []string{"events"}}, {MemberId: "m2", Topics: []string{"events"}}}}
	client := dialProcess(t, p)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		data.Produce(ctx, t, 0, 0, 2)
		resp, err := client.Assign(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetWeightSource() == assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA && resp.GetLoad().GetMax() > 0 {
			if !strings.HasPrefix(resp.GetLoadSnapshot(), "east@") {
				t.Fatalf("snapshot %q, want the east cluster's", resp.GetLoadSnapshot())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no load from the policy's cluster after 20 s: %q", resp.GetWarnings())
		}
	}
}
