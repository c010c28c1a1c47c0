package dev.assignd.kafka;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Configurable;

/**
 * What each of this package's assignors adds to the built-in assignor it
 * extends: the settings ({@link AssigndConfig}), read in
 * {@link #configure}, and the counts of its assignments ({@link #stats}).
 * The call to assignd and the fallback are the {@link AssigndLeader}'s.
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
