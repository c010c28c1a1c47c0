package dev.assignd.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Java's {@link CooperativeStickyAssignor} ("cooperative-sticky"), with the
 * assignment computed by assignd: see {@link AssigndBacked} for what it
 * shares with the built-in. Its {@code onAssignment} learns the generation.
 *
 * <pre>
 * partition.assignment.strategy=dev.assignd.kafka.AssigndCooperativeStickyAssignor
 * assignd.target=dns:///assignd.internal:7070
 * </pre>
 */
public class AssigndCooperativeStickyAssignor extends CooperativeStickyAssignor implements AssigndBacked {
  private final AssigndLeader leader = new AssigndLeader(this);

  @Override
  public AssigndLeader leader() {
    return leader;
  }

  /** assignd's assignment, or the built-in one when the call fails. */
  @Override
  public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> partitionsPerTopic,
      Map<String, Subscription> subscriptions) {
    return leader.assign(partitionsPerTopic, subscriptions, () -> super.assignPartitions(partitionsPerTopic, subscriptions));
  }
}
