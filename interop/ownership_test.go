//go:build unix

package interop

import (
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/testbed/grouplab"
)

// The interop tests record what each member reports it owns and consumes
// on grouplab's Ledger, with grouplab's partition types: the same harness
// as the shims' end-to-end tests.
type (
	tp     = grouplab.TP
	tpSet  = grouplab.TPSet
	ledger = grouplab.Ledger
)

var (
	newLedger     = grouplab.NewLedger
	allPartitions = grouplab.AllPartitions
)

// setOf is the set of partitions of decoded assignment or subscription
// fields.
func setOf(tps []wire.TopicPartitions) tpSet {
	s := make(tpSet)
	for _, t := range tps {
		for _, p := range t.Partitions {
			s[tp{Topic: t.Topic, Partition: p}] = struct{}{}
		}
	}
	return s
}

// setOfMap is the set of partitions of a topic → partitions map, as the
// clients' callbacks report them.
func setOfMap(m map[string][]int32) tpSet {
	s := make(tpSet)
	for topic, ps := range m {
		for _, p := range ps {
			s[tp{Topic: topic, Partition: p}] = struct{}{}
		}
	}
	return s
}
