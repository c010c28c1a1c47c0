package rollout

import (
	"errors"
	"log/slog"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/internal/bus"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// BusKind is the bus kind of the staged rollouts' records: an
// assignd.v1.RolloutEvent.
const BusKind = "rollout"

// BusKey is the key of every staged-rollout record: one key, so one
// partition, so that the replicas read all of them in one total order
// (the first verdict in the log wins).
const BusKey = "rollout"

// BusLog is the [Log] of replicas sharing a bus (the history topic).
type BusLog struct {
	bus    *bus.Bus
	logger *slog.Logger
}

// NewBusLog returns the Log of the rollout records on b; [BusLog.Attach]
// reads them back.
func NewBusLog(b *bus.Bus, logger *slog.Logger) *BusLog {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &BusLog{bus: b, logger: logger}
}

// Publish produces ev, without blocking. It is applied when read back, by
// every replica, this one included; a record Kafka does not take is lost
// (the Controller publishes again what does not come back).
func (l *BusLog) Publish(ev *assigndv1.RolloutEvent) {
	b, err := proto.Marshal(ev)
	if err != nil {
		return
	}
	l.bus.Produce(bus.Record{Kind: BusKind, Key: []byte(BusKey), Value: b}, func(err error) {
		if err != nil && !l.bus.Closing() {
			l.logger.Warn("a rollout record did not reach Kafka; it will be published again", "kind", ev.GetKind().String(), "error", err)
		}
	})
}

// errStrayKey refuses a rollout record under another key than [BusKey]:
// on another partition, the replicas could read it in different orders
// with the others.
var errStrayKey = errors.New("rollout record under another key than " + BusKey)

// Attach passes every rollout record read, in log order, to c; call it
// before the bus's Start.
func (l *BusLog) Attach(c *Controller) { l.attach(c.Apply) }

func (l *BusLog) attach(apply func(*assigndv1.RolloutEvent)) {
	l.bus.Subscribe(BusKind, func(r bus.Record) error {
		ev := new(assigndv1.RolloutEvent)
		if err := proto.Unmarshal(r.Value, ev); err != nil {
			return err
		}
		if string(r.Key) != BusKey {
			l.logger.Warn("a rollout record under another key than "+BusKey+" is ignored", "key", string(r.Key[:min(len(r.Key), 64)]),
				"kind", ev.GetKind().String(), "replica", ev.GetReplica())
			return errStrayKey
		}
		apply(ev)
		return nil
	})
}

var _ Log = (*BusLog)(nil)
