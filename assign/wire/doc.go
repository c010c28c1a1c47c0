// Package wire encodes and decodes the Kafka consumer protocol: the
// ConsumerProtocolSubscription a member sends in JoinGroup, the
// ConsumerProtocolAssignment the leader sends in SyncGroup, and the sticky
// assignors' user data.
package wire

// TopicPartitions names partitions of one topic.
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}
