package server_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
)

// The leader's partition weights reach a load-aware assignor, and the
// response says so: source, snapshot, and the plan's load in the unit the
// leader gave. A count-based assignor reports WEIGHT_SOURCE_NONE.
func TestAssignWithWeights(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Build()
	for _, tc := range []struct {
		a      assign.Assignor
		source assigndv1.WeightSource
		max    float64
	}{
		{assign.LoadSticky(), assigndv1.WeightSource_WEIGHT_SOURCE_REQUEST, 9},
		{assign.CooperativeSticky(), assigndv1.WeightSource_WEIGHT_SOURCE_NONE, 0},
	} {
		t.Run(assign.Ref(tc.a), func(t *testing.T) {
			ts := startServer(t, fixedSelector{a: tc.a})
			req, _ := requestFor(t, g, assign.NameCooperativeSticky)
			req.PartitionWeights = []*assigndv1.PartitionWeights{{Topic: "t", Weights: []float64{9, 3, 3, 3}}}
			req.WeightUnit = "records/s"
			resp, err := ts.client.Assign(callCtx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetWeightSource() != tc.source || resp.GetLoad().GetMax() != tc.max {
				t.Fatalf("source %v load %v, want %v and max %v", resp.GetWeightSource(), resp.GetLoad(), tc.source, tc.max)
			}
			if tc.source == assigndv1.WeightSource_WEIGHT_SOURCE_NONE {
				if resp.GetWeightSnapshot() != "" || resp.GetLoad() != nil {
					t.Fatalf("count-based assignment names a snapshot %q or a load %v", resp.GetWeightSnapshot(), resp.GetLoad())
				}
				return
			}
			if l := resp.GetLoad(); l.GetTotal() != 18 || l.GetBound() != 9 || l.GetMean() != 9 || l.GetUnit() != "records/s" {
				t.Fatalf("load %v", l)
			}
			if !strings.HasPrefix(resp.GetWeightSnapshot(), "sha256:") {
				t.Fatalf("snapshot %q", resp.GetWeightSnapshot())
			}
		})
	}
}

// Invalid weights are INVALID_ARGUMENT naming the field, whatever
// assignor runs.
func TestAssignRejectsBadWeights(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 2).Member("a", "t").Build()
	ts := startServer(t, nil)
	for _, tc := range []struct {
		name    string
		weights []*assigndv1.PartitionWeights
		unit    string
		field   string
	}{
		{"negative", []*assigndv1.PartitionWeights{{Topic: "t", Weights: []float64{1, -2}}}, "", "partition_weights[0].weights[1]"},
		{"NaN", []*assigndv1.PartitionWeights{{Topic: "t", Weights: []float64{math.NaN()}}}, "", "partition_weights[0].weights[0]"},
		{"unknown topic", []*assigndv1.PartitionWeights{{Topic: "t"}, {Topic: "x", Weights: []float64{1}}}, "", "partition_weights[1].topic"},
		{"unit too long", nil, strings.Repeat("b", 65), "weight_unit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := requestFor(t, g, assign.NameCooperativeSticky)
			req.PartitionWeights, req.WeightUnit = tc.weights, tc.unit
			_, err := ts.client.Assign(callCtx(t), req)
			code, fv, info := statusDetails(t, err)
			if code != codes.InvalidArgument || fv.GetField() != tc.field ||
				info.GetReason() != assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP.String() {
				t.Fatalf("got %v (field %q, reason %q), want INVALID_ARGUMENT on %s", err, fv.GetField(), info.GetReason(), tc.field)
			}
		})
	}
}

// kafkaSelector runs load-sticky@1 under a rule that reads load from Kafka.
type kafkaSelector struct{}

func (kafkaSelector) Select(context.Context, selection.Query) (selection.Selection, error) {
	return selection.Selection{Assignor: assign.LoadSticky(), Policy: "kafka/1", KafkaLoad: true}, nil
}

// fakeLoad is a LoadSource with fixed answers.
type fakeLoad struct {
	ws  []assign.TopicWeights
	err error
}

func (f fakeLoad) Weights([]string, time.Time) ([]assign.TopicWeights, error) { return f.ws, f.err }

// fakeSnapshots is a LoadSource that names its snapshot.
type fakeSnapshots struct {
	fakeLoad
	id string
}

func (f fakeSnapshots) SnapshotWeights([]string, time.Time) ([]assign.TopicWeights, string, error) {
	return f.ws, f.id, f.err
}

// A rule that reads load from Kafka gets the source's weights when the
// request has none (WEIGHT_SOURCE_KAFKA); the request's own weights win;
// without a source, or when it has nothing fresh, the call is planned by
// counts with a warning.
func TestAssignWithKafkaLoad(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Build()
	hot := []assign.TopicWeights{{Topic: "t", Weights: []float64{9, 3, 3, 3}}}
	for _, tc := range []struct {
		name    string
		source  server.LoadSource
		request bool
		want    assigndv1.WeightSource
		warning string
		total   float64 // the load planned with, from Kafka
	}{
		{"from kafka", fakeLoad{ws: hot}, false, assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA, "", 18},
		// Kafka has partitions the leader's metadata does not have yet
		// (added since): their rates are dropped, not refused as the
		// request's.
		{"kafka has more partitions", fakeLoad{ws: []assign.TopicWeights{{Topic: "t", Weights: []float64{9, 3, 3, 3, 50, 50}}}}, false, assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA, "", 18},
		// The snapshot predates partitions the leader knows: they get the
		// topic's mean, 6.
		{"kafka has fewer partitions", fakeLoad{ws: []assign.TopicWeights{{Topic: "t", Weights: []float64{9, 3}}}}, false, assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA, "", 24},
		{"request wins", fakeLoad{err: errors.New("unused")}, true, assigndv1.WeightSource_WEIGHT_SOURCE_REQUEST, "", 0},
		{"stale", fakeLoad{err: errors.New("load samples are stale")}, false, assigndv1.WeightSource_WEIGHT_SOURCE_NONE, "load samples are stale", 0},
		{"no source", nil, false, assigndv1.WeightSource_WEIGHT_SOURCE_NONE, "--load-brokers", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []server.Option
			if tc.source != nil {
				opts = append(opts, server.WithLoadSource(tc.source))
			}
			ts := startServer(t, kafkaSelector{}, opts...)
			req, _ := requestFor(t, g, assign.NameCooperativeSticky)
			if tc.request {
				req.PartitionWeights = []*assigndv1.PartitionWeights{{Topic: "t", Weights: []float64{9, 3, 3, 3}}}
			}
			resp, err := ts.client.Assign(callCtx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetWeightSource() != tc.want {
				t.Fatalf("source %v, want %v", resp.GetWeightSource(), tc.want)
			}
			warned := false
			for _, w := range resp.GetWarnings() {
				warned = warned || (tc.warning != "" && strings.Contains(w, tc.warning) && strings.Contains(w, "planned by partition counts"))
			}
			if warned != (tc.warning != "") {
				t.Fatalf("warnings %q, want one about %q", resp.GetWarnings(), tc.warning)
			}
			if tc.want == assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA && (resp.GetLoad().GetMax() < 9 || resp.GetLoad().GetTotal() != tc.total || resp.GetLoad().GetUnit() != "records/s") {
				t.Fatalf("load %v", resp.GetLoad())
			}
			// Planned by counts, the response names no snapshot and no
			// load, only the warning says why.
			if tc.want == assigndv1.WeightSource_WEIGHT_SOURCE_NONE && (resp.GetLoadSnapshot() != "" || resp.GetWeightSnapshot() != "" || resp.GetLoad() != nil) {
				t.Fatalf("a fallback to counts names snapshot %q, weights %q, load %v", resp.GetLoadSnapshot(), resp.GetWeightSnapshot(), resp.GetLoad())
			}
		})
	}
}

// The decision history keeps what the response said about load: a call
// with weights from Kafka records the source, the snapshot and the load,
// which its input digest (the request) does not cover.
func TestDecisionRecordsLoad(t *testing.T) {
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	hot := []assign.TopicWeights{{Topic: "t", Weights: []float64{9, 3, 3, 3}}}
	const id = "eu@2026-12-02T06:00:00Z"
	ts := startServer(t, kafkaSelector{}, server.WithLoadSource(fakeSnapshots{fakeLoad{ws: hot}, id}), server.WithHistory(h))
	g := assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Build()
	req, _ := requestFor(t, g, assign.NameCooperativeSticky)
	req.GroupId = "loaded"
	resp, err := ts.client.Assign(callCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	d := waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), "loaded", 1).GetDecisions()[0]
	if d.GetWeightSource() != assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA || d.GetWeightSnapshot() != resp.GetWeightSnapshot() ||
		d.GetWeightSnapshot() == "" || d.GetLoad().GetMax() != 9 {
		t.Fatalf("decision source %v snapshot %q load %v; response snapshot %q", d.GetWeightSource(), d.GetWeightSnapshot(), d.GetLoad(), resp.GetWeightSnapshot())
	}
	if resp.GetLoadSnapshot() != id || d.GetLoadSnapshot() != id {
		t.Fatalf("load snapshot: response %q, decision %q; want %q", resp.GetLoadSnapshot(), d.GetLoadSnapshot(), id)
	}
}

// clusterSelector runs load-sticky@1 under a rule that reads load from
// the policy's cluster "eu".
type clusterSelector struct{}

func (clusterSelector) Select(context.Context, selection.Query) (selection.Selection, error) {
	return selection.Selection{Assignor: assign.LoadSticky(), Policy: "eu/1", KafkaLoad: true,
		LoadCluster: &selection.LoadCluster{Name: "eu"}}, nil
}

// fakeClusters answers for cluster "eu" only.
type fakeClusters struct {
	ws  []assign.TopicWeights
	err error
}

func (f fakeClusters) Weights(c selection.LoadCluster, _ []string, _ time.Time) ([]assign.TopicWeights, string, error) {
	if c.Name != "eu" {
		return nil, "", fmt.Errorf("asked for cluster %+v", c)
	}
	return f.ws, "eu@2026-12-02T06:00:00Z", f.err
}

// A rule that names a cluster reads that cluster's load, never the
// server's own (--load-brokers); without clusters, or when the cluster
// has nothing, the call is planned by counts with a warning naming it.
func TestAssignWithLoadCluster(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Build()
	hot := []assign.TopicWeights{{Topic: "t", Weights: []float64{9, 3, 3, 3}}}
	own := server.WithLoadSource(fakeLoad{ws: []assign.TopicWeights{{Topic: "t", Weights: []float64{1, 1, 1, 1}}}})
	for _, tc := range []struct {
		name     string
		opts     []server.Option
		want     assigndv1.WeightSource
		snapshot string
		warning  string
	}{
		{"from the cluster", []server.Option{own, server.WithLoadClusters(fakeClusters{ws: hot})}, assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA, "eu@2026-12-02T06:00:00Z", ""},
		{"no clusters: not the server's own", []server.Option{own}, assigndv1.WeightSource_WEIGHT_SOURCE_NONE, "", "cluster eu (the server reads no policy load_clusters)"},
		{"cluster not ready", []server.Option{server.WithLoadClusters(fakeClusters{err: errors.New("load not sampled yet")})}, assigndv1.WeightSource_WEIGHT_SOURCE_NONE, "", "cluster eu (load not sampled yet)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, clusterSelector{}, tc.opts...)
			req, _ := requestFor(t, g, assign.NameCooperativeSticky)
			resp, err := ts.client.Assign(callCtx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetWeightSource() != tc.want || resp.GetLoadSnapshot() != tc.snapshot {
				t.Fatalf("source %v snapshot %q, want %v %q", resp.GetWeightSource(), resp.GetLoadSnapshot(), tc.want, tc.snapshot)
			}
			if tc.warning != "" && !slices.ContainsFunc(resp.GetWarnings(), func(w string) bool { return strings.Contains(w, tc.warning) }) {
				t.Fatalf("warnings %q, want one saying %q", resp.GetWarnings(), tc.warning)
			}
			if tc.want == assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA && resp.GetLoad().GetMax() != 9 {
				t.Fatalf("load %v: not the cluster's weights", resp.GetLoad())
			}
		})
	}
}
