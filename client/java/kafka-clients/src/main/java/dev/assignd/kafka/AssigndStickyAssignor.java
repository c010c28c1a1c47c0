package dev.assignd.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Java's {@link StickyAssignor} ("sticky"), with the assignment computed by
 * assignd: see {@link AssigndBacked} for what it shares with the built-in.
 * Its {@code onAssignment} remembers the member's partitions for its user
 * data.
 *
 * <pre>
 * partition.assignment.strategy=dev.assignd.kafka.AssigndStickyAssignor
 * assignd.target=dns:///assignd.internal:7070
 * </pre>
 */
public class AssigndStickyAssignor extends StickyAssignor implements AssigndBacked {
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
