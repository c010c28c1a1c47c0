// Package faults holds the fault tests on a real Kafka cluster: three
// KRaft nodes on loopback (testbed/kafkabroker), three assignd replicas
// sharing one history topic, and groups of franz-go consumers, some
// planning through assignd (client/kgoassign) and some with franz-go's
// own cooperative-sticky balancer as the baseline of the same run. The
// tests crash the broker that coordinates the groups during a rebalance,
// crash one assignd replica in the middle of a storm of rebalances, and
// put a slow link between the leaders and one replica; they measure what
// the leaders see (which replica served each call, fallbacks and their
// reasons, rebalance time beside the baseline's) and require what must
// hold whatever fails: no partition owned twice, no record lost, and the
// history topic still read and written.
//
// They run with ASSIGND_BROKER=kafka (scripts/test.sh's step "fault
// tests on a Kafka cluster") and are skipped otherwise; the figures they
// log are in docs/operations.md.
package faults
