package loadsource

import (
	"errors"
	"log/slog"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/internal/bus"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// BusKind is the bus kind of the weight snapshots' records: an
// assignd.v1.WeightSnapshot, keyed "weights/" and the cluster, so that
// one cluster's records share a partition and every replica reads them
// in one order.
const BusKind = "weights"

const busKeyPrefix = "weights/"

// ShareOn shares the book through b (the history topic) as replica: its
// samples are published there, and every weight snapshot read comes back
// to [Book.ApplyAt] with its Kafka timestamp. Call it before b's Start and
// before the sources sample. logger tells of records not shared.
func (bk *Book) ShareOn(b *bus.Bus, replica string, logger *slog.Logger) {
	bk.Share(BusPublisher(b, logger), replica)
	b.Subscribe(BusKind, bk.ApplyRecord)
}

// ApplyRecord decodes a weight snapshot record read from the bus and
// takes it as [Book.ApplyAt] does, at the record's time.
func (bk *Book) ApplyRecord(r bus.Record) error {
	ws := new(assigndv1.WeightSnapshot)
	if err := proto.Unmarshal(r.Value, ws); err != nil {
		return err
	}
	bk.ApplyAt(ws, r.Time)
	return nil
}

// BusPublisher is the [Publisher] producing weight snapshots to b,
// without blocking. A record over the cap, or one Kafka does not take, is
// not shared: the replicas then plan with an older snapshot, or by
// counts; it is logged.
func BusPublisher(b *bus.Bus, logger *slog.Logger) Publisher {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return busPublisher{b, logger}
}

type busPublisher struct {
	bus    *bus.Bus
	logger *slog.Logger
}

func (p busPublisher) PublishWeights(ws *assigndv1.WeightSnapshot) {
	b, err := proto.Marshal(ws)
	if err != nil {
		return
	}
	epoch := time.UnixMilli(ws.GetEpochUnixMs()).UTC()
	p.bus.Produce(bus.Record{Kind: BusKind, Key: []byte(busKeyPrefix + ws.GetCluster()), Value: b}, func(err error) {
		switch {
		case errors.Is(err, bus.ErrTooLarge):
			p.logger.Warn("a weight snapshot is over the record cap; not shared", "cluster", ws.GetCluster(), "bytes", len(b))
		case err != nil && !p.bus.Closing():
			p.logger.Warn("a weight snapshot was not shared", "cluster", ws.GetCluster(), "epoch", epoch, "error", err)
		}
	})
}
