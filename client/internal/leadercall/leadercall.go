// Package leadercall is what the Kafka-client adapters (kgoassign,
// saramaassign) share around a group leader's call to assignd: the
// OpenTelemetry instruments both report under the same names, the reasons
// a call falls back, and the check that a response assigns every member
// of the group exactly once.
package leadercall

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// instruments are an adapter's OpenTelemetry instruments. Every adapter
// uses the same names under its own scope, so one dashboard covers all.
type instruments struct {
	// fallbacks counts balances computed in-process because assignd did
	// not answer usefully, by protocol and reason.
	fallbacks metric.Int64Counter
	// duration is the leader's whole balance, by protocol and source.
	duration metric.Float64Histogram
}

// newInstruments creates the instruments in scope, from the global meter
// provider when mp is nil.
func newInstruments(mp metric.MeterProvider, scope string) (instruments, error) {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(scope)
	fallbacks, err := m.Int64Counter("assignd.client.fallbacks", metric.WithUnit("{balance}"),
		metric.WithDescription("Group balances the leader computed in-process because assignd was unavailable, slow or failed."))
	if err != nil {
		return instruments{}, fmt.Errorf("creating the fallback counter: %w", err)
	}
	duration, err := m.Float64Histogram("assignd.client.balance.duration", metric.WithUnit("s"),
		metric.WithDescription("Time the group leader spent balancing, call to assignd and fallback included."),
		metric.WithExplicitBucketBoundaries(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
	if err != nil {
		return instruments{}, fmt.Errorf("creating the balance duration histogram: %w", err)
	}
	return instruments{fallbacks: fallbacks, duration: duration}, nil
}

// record records one balance: its protocol, who computed it, why it
// fell back, and how long it took.
func (i instruments) record(protocol string, source client.BalanceSource, reason string, took time.Duration) {
	ctx := context.Background()
	if source == client.SourceFallback {
		i.fallbacks.Add(ctx, 1, metric.WithAttributes(
			attribute.String("protocol", protocol), attribute.String("reason", reason)))
	}
	i.duration.Record(ctx, took.Seconds(), metric.WithAttributes(
		attribute.String("protocol", protocol), attribute.String("source", source.String())))
}

// ErrInvalidResponse marks an assignd answer that does not fit the group.
var ErrInvalidResponse = errors.New("assignd's response does not fit the group")

// Fallback reasons that are not gRPC codes.
const (
	ReasonInvalidResponse = "InvalidResponse"
	ReasonNoClient        = "NoClient"
)

// Reason names why a call to assignd did not give a usable answer: a gRPC
// code name ("Unavailable", "DeadlineExceeded", ...) or
// ReasonInvalidResponse.
func Reason(err error) string {
	if errors.Is(err, ErrInvalidResponse) {
		return ReasonInvalidResponse
	}
	return status.Code(err).String()
}

// MemberCheck checks that a response assigns every member of the group
// exactly once and nobody else.
type MemberCheck struct {
	order    []string
	done     map[string]bool
	assigned int
}

// NewMemberCheck expects the members ids.
func NewMemberCheck(ids []string) *MemberCheck {
	c := &MemberCheck{order: ids, done: make(map[string]bool, len(ids))}
	for _, id := range ids {
		c.done[id] = false
	}
	return c
}

// Assigned records that the response assigns member id; it is an
// ErrInvalidResponse if id is not a member or was assigned already.
func (c *MemberCheck) Assigned(id string) error {
	seen, ok := c.done[id]
	switch {
	case !ok:
		return fmt.Errorf("%w: it assigns unknown member %q", ErrInvalidResponse, id)
	case seen:
		return fmt.Errorf("%w: it assigns member %q twice", ErrInvalidResponse, id)
	}
	c.done[id] = true
	c.assigned++
	return nil
}

// Complete is an ErrInvalidResponse naming the first expected member the
// response left out, if any.
func (c *MemberCheck) Complete() error {
	if c.assigned == len(c.order) {
		return nil
	}
	for _, id := range c.order {
		if !c.done[id] {
			return fmt.Errorf("%w: member %q is missing", ErrInvalidResponse, id)
		}
	}
	return nil
}

// TopicsToAPI converts the group's topics for an AssignRequest.
func TopicsToAPI(ts []assign.Topic) []*assigndv1.Topic {
	out := make([]*assigndv1.Topic, len(ts))
	for i, t := range ts {
		out[i] = apiconv.TopicToAPI(t)
	}
	return out
}
