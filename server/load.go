package server

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/assign"
)

// LoadSource gives partition weights read outside the request, as
// server/loadsource's Source does from Kafka. Weights must not block: it
// answers from what was read before, or fails, and the call is then
// planned by counts.
type LoadSource interface {
	Weights(topics []string, now time.Time) ([]assign.TopicWeights, error)
}

// errNoLoadSource is the fallback's reason when the server has no source.
var errNoLoadSource = errors.New("the server reads no load from Kafka (--load-brokers)")

// kafkaWeights fills g.Weights from the load source when the rule asks for
// it (params.load_source "kafka") and the request carries none. When it
// cannot, the group is planned by counts: it returns the warning for the
// response, logs it and counts it (assignd.load.fallbacks).
func (s *service) kafkaWeights(ctx context.Context, sel Selection, g *assign.Group) (fromKafka bool, warning string) {
	if !sel.KafkaLoad || len(g.Weights) > 0 {
		return false, ""
	}
	err := errNoLoadSource
	if s.load != nil {
		topics := make([]string, len(g.Topics))
		for i, t := range g.Topics {
			topics[i] = t.Name
		}
		var ws []assign.TopicWeights
		if ws, err = s.load.Weights(topics, time.Now()); err == nil {
			g.Weights = ws
			return true, ""
		}
	}
	s.loadFallbacks.Add(ctx, 1)
	warning = "no partition load from Kafka (" + err.Error() + "): planned by partition counts"
	s.logger.WarnContext(ctx, "load fallback", "policy", sel.Policy, "err", err)
	return false, warning
}

func newLoadFallbacks(mp metric.MeterProvider) (metric.Int64Counter, error) {
	return mp.Meter(meterName).Int64Counter("assignd.load.fallbacks", metric.WithUnit("{call}"),
		metric.WithDescription("Assign calls whose rule reads load from Kafka but were planned by partition counts (no source, stale or not yet sampled)."))
}
