package dev.assignd.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.common.TopicPartition;

/**
 * Java's {@link RoundRobinAssignor} ("roundrobin"), with the assignment computed by assignd.
 *
 * <p>It is the built-in assignor in every respect but {@link #assign(Map, Map)}: the
 * same protocol name, the same subscription user data, byte for byte (it
 * inherits them), the same {@code onAssignment}. So members on this
 * assignor and members on Java's own (or franz-go's, or librdkafka's) share
 * a group, and a group can roll from one to the other without a protocol
 * change. When this member leads, {@link #assign(Map, Map)} asks assignd; if the call
 * fails it runs the inherited built-in assignment instead (see
 * {@link AssigndConfig} for the settings and {@link AssigndStats} for the
 * counts).
 *
 * <pre>
 * partition.assignment.strategy=dev.assignd.kafka.AssigndRoundRobinAssignor
 * assignd.target=dns:///assignd.internal:7070
 * </pre>
 */
public class AssigndRoundRobinAssignor extends RoundRobinAssignor implements AssigndBacked {
  private final AssigndLeader leader = new AssigndLeader(this);

  @Override
  public AssigndLeader leader() {
    return leader;
  }

  /**
   * assignd's assignment, or the built-in one when the call fails.
   * RoundRobinAssignor implements this hook (partition counts, no racks:
   * round robin is not rack-aware), and kafka-clients'
   * {@code AbstractPartitionAssignor} reaches it from
   * {@code assign(Cluster, GroupSubscription)}; the fallback is the
   * inherited implementation itself, so it cannot call back here.
   */
  @Override
  public Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionsPerTopic,
      Map<String, Subscription> subscriptions) {
    return leader.assign(partitionInfosWithoutRacks(partitionsPerTopic), subscriptions,
        () -> super.assign(partitionsPerTopic, subscriptions));
  }
}
