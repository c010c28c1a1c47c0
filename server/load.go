package server

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/selection"
)

// LoadSource gives partition weights read outside the request, as
// server/loadsource's Source does from Kafka. Weights must not block: it
// answers from what was read before, or fails, and the call is then
// planned by counts.
type LoadSource interface {
	Weights(topics []string, now time.Time) ([]assign.TopicWeights, error)
}

// LoadSnapshots is a [LoadSource] that names the snapshot it answers
// from, as server/loadsource's Source with a Book does: the snapshot the
// replicas share (AssignResponse.load_snapshot). The server prefers it to
// Weights.
type LoadSnapshots interface {
	SnapshotWeights(topics []string, now time.Time) (ws []assign.TopicWeights, snapshot string, err error)
}

// LoadClusters gives partition weights from a cluster a policy rule
// names, and the snapshot's id, as server/loadsource's Clusters does.
// Weights must not block: it may start sampling the cluster (which has no
// rates yet), and must bound how many clusters it samples.
type LoadClusters interface {
	Weights(c selection.LoadCluster, topics []string, now time.Time) (ws []assign.TopicWeights, snapshot string, err error)
}

// errNoLoadSource is the fallback's reason when the server has no source.
var errNoLoadSource = errors.New("the server reads no load from Kafka (--load-brokers)")

// errNoLoadClusters is the fallback's reason when a rule names a cluster
// and the server reads none.
var errNoLoadClusters = errors.New("the server reads no policy load_clusters")

// kafkaWeights fills g.Weights from the load source when the rule asks for
// it (params.load_source "kafka") and the request carries none: the
// server's own, or the rule's cluster (params.load_cluster). It returns
// the snapshot's id when the source names it. When it cannot, the group
// is planned by counts: it returns the warning for the response, logs it
// and counts it (assignd.load.fallbacks).
func (s *service) kafkaWeights(ctx context.Context, sel selection.Selection, g *assign.Group) (fromKafka bool, snapshot, warning string) {
	if !sel.KafkaLoad || len(g.Weights) > 0 {
		return false, "", ""
	}
	topics := make([]string, len(g.Topics))
	for i, t := range g.Topics {
		topics[i] = t.Name
	}
	var ws []assign.TopicWeights
	err := errNoLoadSource
	switch c := sel.LoadCluster; {
	case c != nil && s.loadClusters == nil:
		err = errNoLoadClusters
	case c != nil:
		ws, snapshot, err = s.loadClusters.Weights(*c, topics, time.Now())
	case s.load == nil:
	case isSnapshots(s.load):
		ws, snapshot, err = s.load.(LoadSnapshots).SnapshotWeights(topics, time.Now())
	default:
		ws, err = s.load.Weights(topics, time.Now())
	}
	if err == nil {
		g.Weights = clipToMetadata(ws, g.Topics)
		return true, snapshot, ""
	}
	s.loadFallbacks.Add(ctx, 1)
	where := ""
	if sel.LoadCluster != nil {
		where = " cluster " + sel.LoadCluster.Name
	}
	warning = "no partition load from Kafka" + where + " (" + err.Error() + "): planned by partition counts"
	s.logger.WarnContext(ctx, "load fallback", "policy", sel.Policy, "cluster", sel.LoadCluster.GetName(), "err", err)
	return false, "", warning
}

func newLoadFallbacks(mp metric.MeterProvider) (metric.Int64Counter, error) {
	return mp.Meter(meterName).Int64Counter("assignd.load.fallbacks", metric.WithUnit("{call}"),
		metric.WithDescription("Assign calls whose rule reads load from Kafka but were planned by partition counts (no source, stale or not yet sampled)."))
}

func isSnapshots(l LoadSource) bool {
	_, ok := l.(LoadSnapshots)
	return ok
}

// clipToMetadata drops the rates of partitions the request's metadata
// does not have: Kafka's snapshot may be newer than the leader's metadata
// (a topic's partitions were added since), and more weights than
// partitions would be the request's error (INVALID_ARGUMENT on
// partition_weights) for weights it never sent. The leader cannot assign
// partitions it does not know; they are planned at the next rebalance. A
// shorter list (the snapshot predates the new partitions) is the
// assignor's to fill, with the topic's mean. The snapshot's slices are
// shared: they are resliced, never written.
func clipToMetadata(ws []assign.TopicWeights, topics []assign.Topic) []assign.TopicWeights {
	parts := make(map[string]int, len(topics))
	for _, t := range topics {
		parts[t.Name] = int(t.Partitions)
	}
	out, cloned := ws, false
	for i, tw := range ws {
		if n, ok := parts[tw.Topic]; ok && len(tw.Weights) > n {
			if !cloned {
				out, cloned = slices.Clone(ws), true
			}
			out[i].Weights = tw.Weights[:n:n]
		}
	}
	return out
}
