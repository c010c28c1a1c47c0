package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/testbed/loadtopic"
	"github.com/assignd/assignd/testbed/policytest"
)

// End to end on kfake: producers write a skewed key distribution, the
// server samples the log-end offsets, and a policy rule runs load-sticky@1
// with load from Kafka behind "cooperative-sticky" for some groups: their
// hot partition gets a member of its own, where the count-based rule
// gives that member as many partitions as the others.
func TestKafkaLoadEndToEnd(t *testing.T) {
	events := loadtopic.Start(t, "events", 6)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	src := loadsource.New(kadm.NewClient(events.Producer).ListEndOffsets)
	// Ask for the topic once so that the samples cover it.
	if _, err := src.Weights([]string{"events"}, time.Now()); err == nil {
		t.Fatal("weights before any sample")
	}
	t0 := time.Now()
	if err := src.Sample(ctx, t0); err != nil {
		t.Fatal(err)
	}
	events.Produce(ctx, t, 60, 3, 3, 3, 3, 3)
	if err := src.Sample(ctx, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}

	sel := policytest.Serve(t, `version: 1
rules:
  - name: load
    match: {group_prefixes: [load-], protocols: [cooperative-sticky]}
    assignor: load-sticky@1
    params: {load_source: kafka}
`)
	ts := startServer(t, sel, server.WithLoadSource(src))
	g := assigntest.NewGroup().Topic("events", 6).Member("a", "events").Member("b", "events").Member("c", "events").Build()
	for _, tc := range []struct {
		group      string
		source     assigndv1.WeightSource
		hotsAlone  bool
		assignorID string
	}{
		{"load-orders", assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA, true, "load-sticky"},
		{"orders", assigndv1.WeightSource_WEIGHT_SOURCE_NONE, false, "cooperative-sticky"},
	} {
		req, _ := requestFor(t, g, assign.NameCooperativeSticky)
		req.GroupId = tc.group
		resp, err := ts.client.Assign(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetWeightSource() != tc.source || resp.GetAssignor() != tc.assignorID {
			t.Fatalf("%s: %s with source %v", tc.group, resp.GetAssignor(), resp.GetWeightSource())
		}
		for _, ma := range resp.GetAssignments() {
			for _, tp := range ma.GetPartitions() {
				if len(tp.GetPartitions()) > 0 && tp.GetPartitions()[0] == 0 {
					if alone := len(tp.GetPartitions()) == 1; alone != tc.hotsAlone {
						t.Errorf("%s: the hot partition's member holds %v", tc.group, tp.GetPartitions())
					}
				}
			}
		}
	}
}
