// Package kafkabroker runs a real Apache Kafka 4.x broker for tests: one
// combined broker and controller (KRaft) on 127.0.0.1, on free ports,
// from the jars that scripts/kafka-jars.sh fetched into .cache/kafka/lib
// as pinned in tools/kafka/pom.xml.
//
// [Start] formats the storage (kafka.tools.StorageTool format
// --standalone), starts the JVM in its own process group and waits,
// bounded, until the broker answers a metadata request. [Broker.Stop]
// kills the process group. On Linux the JVM also dies with the thread
// that started it (Pdeathsig), so a test binary that is killed leaves no
// broker behind. The broker's log is kept in its directory;
// [Broker.LogTail] returns its end for a failing test's output, and
// [Broker.StopOnCleanup] does both for a test.
//
// The broker's settings suit group tests: no initial rebalance delay,
// single-replica internal topics with one partition, sessions as short as
// 100 ms, no automatic topic creation ([DefaultConfig]).
//
// [WithTap] puts a Kafka-protocol proxy in front of the broker and makes
// the broker advertise it, so that every client connects through it; then
// [Broker.Observe] sees every request as the broker is about to receive
// it, as kfake's control hooks do, which is how end-to-end tests check
// what leaders sent on either broker.
//
// [StartCluster] runs several such nodes, every one a voter of a static
// controller quorum, with topics replicated to three of them and two
// in-sync replicas required; [Broker.Kill] crashes one, and
// [GroupCoordinator] and [PartitionLeader] say which one to crash.
//
// The command testbed/cmd/testbroker runs the same broker for suites
// that are not written in Go.
package kafkabroker
