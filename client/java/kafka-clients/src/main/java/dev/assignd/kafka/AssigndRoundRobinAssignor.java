package dev.assignd.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.common.TopicPartition;

/**
 * Java's {@link RoundRobinAssignor} ("roundrobin"), with the assignment
 * computed by assignd: see {@link AssigndBacked} for what it shares with the
 * built-in.
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
   * assignd's assignment, or the built-in one when the call fails. Round
   * robin's hook is this one, of partition counts (it is not rack-aware);
   * the fallback is the inherited implementation itself, so it cannot call
   * back here.
   */
  @Override
  public Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionsPerTopic,
      Map<String, Subscription> subscriptions) {
    return leader.assign(partitionInfosWithoutRacks(partitionsPerTopic), subscriptions,
        () -> super.assign(partitionsPerTopic, subscriptions));
  }
}
