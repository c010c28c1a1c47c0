// Package bus is the Kafka topic that assignd replicas share, as a typed
// transport: a record is a kind (the Kafka header [KindHeader]), a key
// and bytes, and the bus knows none of their meanings. Each owner of a
// kind subscribes to it ([Bus.Subscribe]) and decodes its own records:
// the group history (server/history/kafkalog), the staged rollouts
// (server/rollout) and the weight snapshots (server/loadsource).
// Records of a kind nobody subscribed to, or with no kind, are skipped
// and counted (assignd.history.records.unknown), so that a replica
// running an older version reads past a newer kind.
//
// Ordering is the producer's: Kafka orders the records of one partition,
// and the partition is the key's, so an owner that needs every replica
// to read its records in one order keys them alike (the staged rollouts
// key all theirs "rollout"; a cluster's weight snapshots share
// "weights/" and the cluster). The bus delivers each partition's records
// in the topic's order, on one goroutine.
//
// [Bus.Produce] never blocks: it hands a record to the franz-go client's
// bounded buffer, and a record the buffer or Kafka does not take fails
// through its callback. When Kafka has taken nothing for the delivery
// timeout, the buffered records are failed at once (franz-go checks a
// record's timeout only around a produce request, and with the broker
// unreachable none is made).
//
// The topic is created when missing, with cleanup.policy=delete and a
// time retention: a compacted topic would keep one record per key, and
// the owners keep the last several.
package bus
