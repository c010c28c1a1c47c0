package apiconv

import (
	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// MoveReasonToAPI maps an engine reason to the API's; the enums share
// their numbers (TestMoveReasonToAPI keeps them in step).
func MoveReasonToAPI(r assign.MoveReason) assigndv1.MoveReason { return assigndv1.MoveReason(r) }

// MoveReasonsToAPI lists the non-zero counts, in reason order; nil when
// nothing moved, so that a quiet round allocates nothing.
func MoveReasonsToAPI(c *assign.ReasonCounts) []*assigndv1.MoveReasonCount {
	n := 0
	for _, v := range c {
		if v > 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	msgs := make([]assigndv1.MoveReasonCount, n)
	out := make([]*assigndv1.MoveReasonCount, 0, n)
	for r, v := range c {
		if v > 0 {
			m := &msgs[len(out)]
			m.Reason, m.Partitions = MoveReasonToAPI(assign.MoveReason(r)), int32(v)
			out = append(out, m)
		}
	}
	return out
}

// MovesToAPI converts the engine's per-partition moves.
func MovesToAPI(ms []assign.Move) []*assigndv1.PartitionMove {
	if len(ms) == 0 {
		return nil
	}
	msgs := make([]assigndv1.PartitionMove, len(ms))
	out := make([]*assigndv1.PartitionMove, len(ms))
	for i, mv := range ms {
		m := &msgs[i]
		m.Topic, m.Partition, m.FromMemberId, m.ToMemberId = mv.Topic, mv.Partition, mv.From, mv.To
		m.Reason = MoveReasonToAPI(mv.Reason)
		out[i] = m
	}
	return out
}

// MoveReasonFromAPI maps the API's reason to the engine's; values the
// engine does not know (a newer server's) map to assign.ReasonNone.
func MoveReasonFromAPI(r assigndv1.MoveReason) assign.MoveReason {
	if r < 0 || int(r) >= assign.NumReasons {
		return assign.ReasonNone
	}
	return assign.MoveReason(r)
}
