// Package grouplab runs real franz-go consumer groups against a broker
// and an in-process assignd, and
// records everything that matters on one timeline: every member's
// OnPartitionsAssigned, OnPartitionsRevoked and OnPartitionsLost callbacks,
// every record produced and consumed, every balance a shim leader ran and
// every SyncGroup a leader sent the broker.
//
// The end-to-end tests of the client shim and the assignd-demo command
// are built on it. A Lab drives membership (StartMember, Member.Leave,
// Member.Kill), assignd (StopAssignd, StartAssignd) and a continuous
// producer, waits for the group to settle, and then answers the questions
// that matter for a rebalance protocol (Analyze): was a partition ever
// owned by two members at once, was every produced record consumed, were
// duplicates explained by a partition moving before its offsets were
// committed, how many rebalances did each membership change take, and what
// moved.
//
// The broker is franz-go's in-process Kafka-protocol broker (kfake) by
// default, or a real Apache Kafka 4.x broker with ASSIGND_BROKER=kafka or
// [WithBroker] ([Broker]; one real broker per test binary, which every lab
// shares with topics of its own and group names of its own). The same
// scenarios run unchanged on both; where the two brokers behave
// differently (leaders per generation, static members) the tests require
// what must hold on both and say which is Kafka's behaviour
// (docs/brokers.md).
//
// Harnesses that run clients the lab does not drive itself (sarama,
// librdkafka, KafkaJS, kafka-python) are built from the same parts: the
// broker ([StartBroker]), a restartable in-process assignd
// ([StartAssignd]), a continuous producer ([StartProducer]) or marker
// records ([ProduceMarkers]), and a [Ledger] of what each member reports
// it owns and consumes, in the module's one topic-partition type ([TP]).
//
// Everything listens on 127.0.0.1 and every blocking call takes a context.
package grouplab
