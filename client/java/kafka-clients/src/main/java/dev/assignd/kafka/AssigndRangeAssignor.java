package dev.assignd.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Java's {@link RangeAssignor} ("range"), with the assignment computed by assignd.
 *
 * <p>It is the built-in assignor in every respect but {@link #assignPartitions}: the
 * same protocol name, the same subscription user data, byte for byte (it
 * inherits them), the same {@code onAssignment}. So members on this
 * assignor and members on Java's own (or franz-go's, or librdkafka's) share
 * a group, and a group can roll from one to the other without a protocol
 * change. When this member leads, {@link #assignPartitions} asks assignd; if the call
 * fails it runs the inherited built-in assignment instead (see
 * {@link AssigndConfig} for the settings and {@link AssigndStats} for the
 * counts).
 *
 * <pre>
 * partition.assignment.strategy=dev.assignd.kafka.AssigndRangeAssignor
 * assignd.target=dns:///assignd.internal:7070
 * </pre>
 */
public class AssigndRangeAssignor extends RangeAssignor implements AssigndBacked {
  private final AssigndLeader leader = new AssigndLeader(this);

  @Override
  public AssigndLeader leader() {
    return leader;
  }

  /**
   * assignd's assignment, or the built-in one when the call fails. This is
   * the hook kafka-clients' {@code AbstractPartitionAssignor.assign(Cluster,
   * GroupSubscription)} calls with the subscribed topics' partitions from the
   * leader's metadata, so everything around it (topic lookup, wrapping the
   * result) stays the built-in's.
   */
  @Override
  public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> partitionsPerTopic,
      Map<String, Subscription> subscriptions) {
    return leader.assign(partitionsPerTopic, subscriptions, () -> super.assignPartitions(partitionsPerTopic, subscriptions));
  }
}
