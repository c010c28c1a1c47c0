package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
	"github.com/assignd/assignd/server/selection"
)

// shape is a request of a given size, for the estimate tests.
type shape struct {
	name                   string
	protocol               string
	members, topics, parts int  // parts per topic
	subscribe              int  // topics per member (0: all)
	owned                  bool // members own a round-robin share, generation 3
	raw                    bool // members as raw metadata (v3)
	view                   assigndv1.AssignmentView
	short                  bool // topic names of 2 to 4 bytes
	weighted               bool // every partition has a weight
}

func (s shape) request() *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{GroupId: "g", ProtocolName: s.protocol, GenerationId: 4, View: s.view}
	names := make([]string, s.topics)
	for i := range names {
		names[i] = fmt.Sprintf("topic-%04d", i)
		if s.short {
			names[i] = fmt.Sprintf("t%d", i)
		}
		req.Topics = append(req.Topics, &assigndv1.Topic{Name: names[i], PartitionCount: int32(s.parts)})
		if s.weighted {
			ws := make([]float64, s.parts)
			for p := range ws {
				ws[p] = float64(1 + (p*7919)%1000) // uneven, so that load-sticky moves
			}
			req.PartitionWeights = append(req.PartitionWeights, &assigndv1.PartitionWeights{Topic: names[i], Weights: ws})
		}
	}
	sub := s.subscribe
	if sub == 0 {
		sub = s.topics
	}
	for m := 0; m < s.members; m++ {
		id := fmt.Sprintf("member-%06d", m)
		var ts []string
		for k := 0; k < sub; k++ {
			ts = append(ts, names[(m+k)%s.topics])
		}
		var owned []wire.TopicPartitions
		if s.owned {
			for _, t := range ts {
				var ps []int32
				for p := m % s.members; p < s.parts; p += s.members {
					ps = append(ps, int32(p))
				}
				if len(ps) > 0 {
					owned = append(owned, wire.TopicPartitions{Topic: t, Partitions: ps})
				}
			}
		}
		pm := &assigndv1.Member{MemberId: id}
		if s.raw {
			pm.Metadata = wire.AppendSubscription(nil, &wire.Subscription{Version: 3, Topics: ts, Owned: owned, Generation: 3})
		} else {
			pm.Topics = ts
			for _, o := range owned {
				pm.OwnedPartitions = append(pm.OwnedPartitions, &assigndv1.TopicPartitions{Topic: o.Topic, Partitions: o.Partitions})
			}
			if s.owned {
				g := int32(3)
				pm.Generation = &g
			}
		}
		req.Members = append(req.Members, pm)
	}
	return req
}

var estimateShapes = []shape{
	{name: "1 member, 1 topic of 1M, range", protocol: "range", members: 1, topics: 1, parts: 1_000_000},
	{name: "1 member, 1 topic of 1M, cooperative-sticky", protocol: "cooperative-sticky", members: 1, topics: 1, parts: 1_000_000},
	{name: "1 member, 1 topic of 1M, encoded view", protocol: "cooperative-sticky", members: 1, topics: 1, parts: 1_000_000, view: assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED},
	{name: "1,000 members raw, 1 topic of 500k, cooperative-sticky", protocol: "cooperative-sticky", members: 1000, topics: 1, parts: 500_000, raw: true},
	{name: "1,000 members raw owning, 100 topics of 1,000", protocol: "cooperative-sticky", members: 1000, topics: 100, parts: 1000, raw: true, owned: true},
	{name: "500 members owning, 200 of 500 topics of 500", protocol: "cooperative-sticky", members: 500, topics: 500, parts: 500, subscribe: 200, owned: true},
	{name: "500 members owning, 200 of 500 short topics of 500", protocol: "cooperative-sticky", members: 500, topics: 500, parts: 500, subscribe: 200, owned: true, short: true},
	{name: "500 members raw owning, 200 of 500 short topics of 500", protocol: "cooperative-sticky", members: 500, topics: 500, parts: 500, subscribe: 200, owned: true, short: true, raw: true},
	{name: "500 members, 200 of 500 short topics of 500", protocol: "cooperative-sticky", members: 500, topics: 500, parts: 500, subscribe: 200, short: true},
	{name: "20,000 members, 1 topic of 20,000, range", protocol: "range", members: 20000, topics: 1, parts: 20000},
	{name: "20,000 members, 1 topic of 20,000, cooperative-sticky", protocol: "cooperative-sticky", members: 20000, topics: 1, parts: 20000},
	{name: "2,000 members, 50 topics of 100, roundrobin", protocol: "roundrobin", members: 2000, topics: 50, parts: 100},
	{name: "2,000 members, 50 topics of 100, sticky", protocol: "sticky", members: 2000, topics: 50, parts: 100},
	{name: "1,000 members, 100 short topics of 10", protocol: "cooperative-sticky", members: 1000, topics: 100, parts: 10, short: true},
	{name: "1,000 members raw, 100 short topics of 10", protocol: "cooperative-sticky", members: 1000, topics: 100, parts: 10, short: true, raw: true},
	{name: "100 members owning, 1 topic of 500k", protocol: "cooperative-sticky", members: 100, topics: 1, parts: 500_000, owned: true, short: true},
	{name: "100 members raw owning, 1 topic of 500k", protocol: "cooperative-sticky", members: 100, topics: 1, parts: 500_000, owned: true, short: true, raw: true},
	{name: "10 members, 3 topics of 12", protocol: "cooperative-sticky", members: 10, topics: 3, parts: 12, owned: true},
	{name: "1 member, 1 weighted topic of 1M, load-sticky", protocol: assign.NameLoadSticky, members: 1, topics: 1, parts: 1_000_000, weighted: true},
	{name: "100 members owning, 1 weighted topic of 500k, load-sticky", protocol: assign.NameLoadSticky, members: 100, topics: 1, parts: 500_000, owned: true, short: true, weighted: true},
	{name: "1,000 members raw, 1 weighted topic of 500k, load-sticky", protocol: assign.NameLoadSticky, members: 1000, topics: 1, parts: 500_000, raw: true, weighted: true},
}

// allocated is what one call allocates, from the request's bytes to the
// response's: decoding, assigning, encoding.
func allocated(t *testing.T, svc *service, b []byte) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	req := &assigndv1.AssignRequest{}
	if err := request.Unmarshal(b, req); err != nil {
		t.Fatal(err)
	}
	resp, err := svc.assign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out, err := proto.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(out)
	return after.TotalAlloc - before.TotalAlloc
}

// TestEstimateCoversAllocation: on every shape, the estimate made before
// any work covers what the call allocates in all, from decoding the
// request to encoding the response, and overshoots by at most 4 times
// (an estimate far above need would turn away calls that fit). The
// ratios are logged; run with -v to see them.
func TestEstimateCoversAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MiB; skipped with -short")
	}
	for _, r := range estimateRatios(t, loadAwareSelector{}) {
		t.Logf("%-55s request %9d B  allocated %6.1f MiB  estimate %6.1f MiB  ratio %.2f", r.shape, r.request,
			float64(r.allocated)/(1<<20), float64(r.estimate)/(1<<20), r.ratio)
		if r.ratio < 1 || r.ratio > 4 {
			t.Errorf("%s: estimate %d for %d allocated (ratio %.2f), want 1 to 4", r.shape, r.estimate, r.allocated, r.ratio)
		}
	}
}

// estimateRatio is what one shape of estimateShapes allocated, served
// under a selector, beside what admission estimated for it.
type estimateRatio struct {
	shape               string
	request             int
	estimate, allocated uint64
	ratio               float64
}

// estimateRatios serves every shape of estimateShapes under sel and
// measures each.
func estimateRatios(t *testing.T, sel selection.Selector) []estimateRatio {
	t.Helper()
	metrics, err := newDomainMetrics(metricnoop.NewMeterProvider(), func() int64 { return 0 }, func() int64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	svc := &service{sel: sel, logger: slog.New(slog.DiscardHandler), admission: newAdmission(1, 1<<40, time.Second, 0),
		maxPartitions: 1 << 40, run: runEngine, metrics: metrics}
	var out []estimateRatio
	for _, s := range estimateShapes {
		req := s.request()
		b, err := proto.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		est := uint64(request.EstimateBytes(req, len(b)))
		got := allocated(t, svc, b)
		out = append(out, estimateRatio{s.name, len(b), est, got, float64(est) / float64(got)})
	}
	return out
}

// TestSubscribedTopics: the topic count read from raw metadata's head is
// exact for a real subscription and bounded by the bytes for garbage.

// loadAwareSelector runs load-sticky@1 for the protocol name "load-sticky"
// and the standard assignors for the others.
type loadAwareSelector struct{}

func (loadAwareSelector) Select(ctx context.Context, q selection.Query) (selection.Selection, error) {
	if q.ProtocolName == assign.NameLoadSticky {
		return selection.Selection{Assignor: assign.LoadSticky(), Policy: "load/1"}, nil
	}
	return selection.Default().Select(ctx, q)
}
