package dev.assignd.kafka;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Configurable;

/**
 * What each of this package's assignors adds to the built-in assignor it
 * extends. Each is Java's built-in assignor of the same protocol name in
 * every respect but the assignment: the same subscription user data, byte
 * for byte (it inherits them), the same {@code onAssignment}. So members on
 * these assignors and members on Java's own (or franz-go's, or
 * librdkafka's) share a group, and a group can roll from one to the other
 * without a protocol change. When the member leads, the assignment hook
 * asks assignd ({@link AssigndLeader}); if the call fails it runs the
 * inherited built-in assignment instead. The hook is
 * {@code assignPartitions} (round robin's: {@code assign} of partition
 * counts), which kafka-clients' {@code AbstractPartitionAssignor.assign(Cluster,
 * GroupSubscription)} calls with the subscribed topics' partitions from the
 * leader's metadata, so everything around it (topic lookup, wrapping the
 * result) stays the built-in's.
 *
 * <p>Each class extends its built-in, rather than all four sharing one base
 * class, so that it stays one ({@code instanceof}, the inherited user data
 * and {@code onAssignment}); what they share is here and in
 * {@link AssigndLeader}. Settings: {@link AssigndConfig}, read in
 * {@link #configure}; the counts of its assignments: {@link #stats}.
 */
public interface AssigndBacked extends ConsumerPartitionAssignor, Configurable {
  /** The part that asks assignd and falls back; applications use {@link #stats} and {@link #rebalanceProtocol}. */
  AssigndLeader leader();

  /** Reads the {@code assignd.*} settings from the consumer's properties and connects to assignd in the background. */
  @Override
  default void configure(Map<String, ?> configs) {
    leader().configure(configs, getClass());
  }

  /** This instance's counters (each also counts in {@link AssigndStats#global()}). */
  default AssigndStats stats() {
    return leader().stats();
  }

  /**
   * The rebalance protocol this assignor tells assignd the group runs: the
   * highest one that every assignor the consumer lists supports, as
   * kafka-clients decides (cooperative-sticky beside an eager-only assignor
   * runs EAGER).
   */
  default RebalanceProtocol rebalanceProtocol() {
    return leader().protocol();
  }
}
