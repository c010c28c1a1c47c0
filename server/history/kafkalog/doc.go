// Package kafkalog shares a fleet's group history through the topic the
// replicas share ([bus.Bus]): every assignd replica produces the records
// it makes ([history.Store]'s decisions, shadow runs and inputs) as
// records of the kind [Kind], keyed by group id, and reads every record of
// that kind, from the topic's start, into its own Store. Each replica
// then answers for every group the fleet serves, and a restarted replica
// reads its history back.
//
// Assign never waits for Kafka: [Log.Publish] queues a record without
// blocking, and the bus hands it to the franz-go client's bounded buffer.
// When the queue is full, or Kafka does not take a record within the
// delivery timeout, the record is dropped and counted
// (assignd.history.records.dropped). Once Kafka takes records again, the
// replica produces a HistoryGap record saying how many it dropped, when,
// and of which groups: every replica then shows the gap
// ([history.Store.Replicas]).
package kafkalog
