package assign

import "github.com/assignd/assignd/assign/wire"

// TopicPartitions names partitions of one topic. It is the same type as the
// wire codec's, so decoded subscriptions feed the engine without copying.
type TopicPartitions = wire.TopicPartitions
