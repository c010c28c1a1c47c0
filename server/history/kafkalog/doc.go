// Package kafkalog shares a fleet's group history through a Kafka topic:
// every assignd replica produces the records it makes ([history.Store]'s
// decisions, shadow runs and inputs) to one topic, keyed by group id, and
// consumes the whole topic, from its start, into its own Store. Each
// replica then answers for every group the fleet serves, and a restarted
// replica reads its history back.
//
// Assign never waits for Kafka: [Log.Publish] hands a record to the
// franz-go client's bounded buffer without blocking. When the buffer is
// full, or Kafka does not take a record within the delivery timeout, the
// record is dropped and counted (assignd.history.records.dropped). Once
// Kafka takes records again, the replica produces a HistoryGap record
// saying how many it dropped, when, and of which groups: every replica
// then shows the gap ([history.Store.Replicas]).
//
// The topic is created when missing, with cleanup.policy=delete and a
// time retention: a compacted topic would keep one record per group, and
// the history is the last several.
//
// The topic also carries the staged rollouts' records (RolloutEvent, see
// server/rollout), all keyed [RolloutKey] so that they share one
// partition and every replica reads them in one order:
// [Log.PublishRollout] produces them, [Log.SetRolloutHandler] receives
// them.
package kafkalog
