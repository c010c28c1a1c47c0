package kafkalog

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// WithWeights hands every weight snapshot record read from the topic to
// sink, in the topic's order, with the record's Kafka timestamp
// (loadsource's Book.ApplyAt). Without it they are skipped. sink must not
// block.
func WithWeights(sink func(ws *assigndv1.WeightSnapshot, written time.Time)) Option {
	return optionFunc(func(c *config) { c.weights = sink })
}

// weightsKeyPrefix keys weight snapshot records: "weights/" and the
// cluster, so that one cluster's records share a partition and every
// replica reads them in one order.
const weightsKeyPrefix = "weights/"

// applyWeights hands a record's weight snapshot to the sink; it reports
// whether the record was one.
func (l *Log) applyWeights(rec *assigndv1.HistoryRecord, written time.Time) bool {
	ws := rec.GetWeightSnapshot()
	if ws == nil {
		return false
	}
	if l.cfg.weights != nil {
		l.cfg.weights(ws, written)
	}
	return true
}

// PublishWeights shares a weight snapshot, without blocking (see
// loadsource.Publisher). A record over the cap, or one Kafka does not
// take, is not shared: the replicas then plan with an older snapshot, or
// by counts; it is logged.
func (l *Log) PublishWeights(ws *assigndv1.WeightSnapshot) {
	b, err := proto.Marshal(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_WeightSnapshot{WeightSnapshot: ws}})
	if err == nil && len(b) > l.cfg.maxRecordBytes {
		l.cfg.logger.Warn("history: a weight snapshot is over the record cap; not shared", "cluster", ws.GetCluster(), "bytes", len(b))
		return
	}
	epoch := time.UnixMilli(ws.GetEpochUnixMs()).UTC()
	l.produce(&kgo.Record{Key: []byte(weightsKeyPrefix + ws.GetCluster()), Value: b}, func(err error) {
		if err != nil && !l.closing() {
			l.cfg.logger.Warn("history: a weight snapshot was not shared", "cluster", ws.GetCluster(), "epoch", epoch, "error", err)
		}
	})
}

// closing reports whether Close has begun.
func (l *Log) closing() bool { return l.ctx != nil && context.Cause(l.ctx) != nil }
