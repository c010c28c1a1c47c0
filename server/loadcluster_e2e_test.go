package server_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/internal/kafkaconn"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/testbed/loadtopic"
	"github.com/assignd/assignd/testbed/policytest"
)

// Two rules name two clusters (load_clusters): each group is weighted
// from its own cluster, where a different partition is hot, and the
// response names that cluster's snapshot.
func TestLoadClustersPerRule(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hot := map[string]int32{"east": 0, "west": 5}
	brokers := map[string]string{}
	events := map[string]*loadtopic.Topic{}
	for name := range hot {
		events[name] = loadtopic.Start(t, "events", 6)
		brokers[name] = strings.Join(events[name].Seeds, ", ")
	}
	sel := policytest.Serve(t, fmt.Sprintf(`version: 1
load_clusters:
  east: {brokers: [%s]}
  west: {brokers: [%s]}
rules:
  - name: east
    match: {group_prefixes: [east-]}
    assignor: load-sticky@1
    params: {load_source: kafka, load_cluster: east}
  - name: west
    match: {group_prefixes: [west-]}
    assignor: load-sticky@1
    params: {load_source: kafka, load_cluster: west}
`, brokers["east"], brokers["west"]))
	clusters := loadsource.NewClusters(loadsource.NewBook(), func() map[string]kafkaconn.Config { return sel.Policy().LoadClusters() },
		loadsource.WithSourceOptions(loadsource.WithInterval(50*time.Millisecond), loadsource.WithStaleAfter(time.Minute)))
	defer clusters.Close()
	ts := startServer(t, sel, server.WithLoadClusters(clusters))

	g := assigntest.NewGroup().Topic("events", 6).Member("a", "events").Member("b", "events").Member("c", "events").Build()
	assignGroup := func(group string) *assigndv1.AssignResponse {
		req, _ := requestFor(t, g, assign.NameCooperativeSticky)
		req.GroupId = group
		resp, err := ts.client.Assign(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// The first calls start the sources; they are planned by counts.
	for name := range hot {
		if resp := assignGroup(name + "-1"); resp.GetWeightSource() != assigndv1.WeightSource_WEIGHT_SOURCE_NONE {
			t.Fatalf("%s: source %v before any sample", name, resp.GetWeightSource())
		}
	}
	if clusters.Len() != 2 {
		t.Fatalf("%d clusters sampled, want 2", clusters.Len())
	}
	// Produce until the test ends: the sources' first samples of the topic
	// may come at any time after the first calls.
	pctx, stopProducing := context.WithCancel(ctx)
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		for pctx.Err() == nil {
			for name, h := range hot {
				counts := []int{1, 1, 1, 1, 1, 1}
				counts[h] = 30
				_ = events[name].Producer.ProduceSync(pctx, events[name].Records(counts...)...).FirstErr()
			}
			select {
			case <-pctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	defer func() { stopProducing(); <-produced }()
	for name, h := range hot {
		var resp *assigndv1.AssignResponse
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			resp = assignGroup(name + "-1")
			if resp.GetWeightSource() == assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA && resp.GetLoad().GetMax() > 0 {
				break
			}
			if time.Since(start) > 15*time.Second {
				t.Fatalf("%s: no load from its cluster after 15 s: %v", name, resp.GetWarnings())
			}
		}
		if !strings.HasPrefix(resp.GetLoadSnapshot(), name+"@") {
			t.Errorf("%s: snapshot %q, want the %s cluster's", name, resp.GetLoadSnapshot(), name)
		}
		alone := false
		for _, ma := range resp.GetAssignments() {
			for _, tp := range ma.GetPartitions() {
				if slices.Equal(tp.GetPartitions(), []int32{h}) {
					alone = true
				}
			}
		}
		if !alone {
			t.Errorf("%s: hot partition %d is not alone on a member: %v", name, h, resp.GetAssignments())
		}
	}
}
