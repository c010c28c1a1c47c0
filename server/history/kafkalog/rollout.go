package kafkalog

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// RolloutKey is the key of every staged-rollout record: one key, so one
// partition, so that the replicas read all of them in one total order
// (server/rollout relies on it: the first verdict in the log wins).
const RolloutKey = "rollout"

// maxRolloutRecords bounds the rollout records kept for a handler set
// late; the oldest go first (re-published STATE records restore what
// they said).
const maxRolloutRecords = 10000

// rolloutFeed passes the rollout records read to a handler, keeping those
// read before it is set.
type rolloutFeed struct {
	mu      sync.Mutex
	kept    []*assigndv1.RolloutEvent
	handler func(*assigndv1.RolloutEvent)
}

// PublishRollout produces a staged-rollout record, without blocking. It is
// applied when read back, by every replica, this one included; a record
// Kafka does not take is lost (the rollout Controller publishes again
// what does not come back).
func (l *Log) PublishRollout(ev *assigndv1.RolloutEvent) {
	b, err := proto.Marshal(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_RolloutEvent{RolloutEvent: ev}})
	if err != nil {
		return
	}
	l.produce(&kgo.Record{Key: []byte(RolloutKey), Value: b}, func(err error) {
		if err != nil {
			l.cfg.logger.Warn("history: a rollout record did not reach Kafka; it will be published again", "kind", ev.GetKind().String(), "error", err)
		}
	})
}

// SetRolloutHandler passes every rollout record read, in log order, to f:
// first those read so far, then each as it is read. f runs on the
// consuming goroutine and must not block for long.
func (l *Log) SetRolloutHandler(f func(*assigndv1.RolloutEvent)) {
	l.rollouts.mu.Lock()
	defer l.rollouts.mu.Unlock()
	for _, ev := range l.rollouts.kept {
		f(ev)
	}
	l.rollouts.kept = nil
	l.rollouts.handler = f
}

// applyRollout hands a record read to the handler, or keeps it. A record
// under another key than RolloutKey is ignored: on another partition, the
// replicas could read it in different orders with the others.
func (l *Log) applyRollout(key []byte, ev *assigndv1.RolloutEvent) {
	if string(key) != RolloutKey {
		l.cfg.logger.Warn("history: a rollout record under another key than "+RolloutKey+" is ignored", "key", string(key[:min(len(key), 64)]),
			"kind", ev.GetKind().String(), "replica", ev.GetReplica())
		return
	}
	l.rollouts.mu.Lock()
	defer l.rollouts.mu.Unlock()
	if l.rollouts.handler != nil {
		l.rollouts.handler(ev)
		return
	}
	if len(l.rollouts.kept) >= maxRolloutRecords {
		l.rollouts.kept = l.rollouts.kept[1:]
	}
	l.rollouts.kept = append(l.rollouts.kept, ev)
}
