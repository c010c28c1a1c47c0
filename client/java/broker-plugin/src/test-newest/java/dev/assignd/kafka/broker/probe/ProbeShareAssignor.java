package dev.assignd.kafka.broker.probe;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;

/**
 * A KIP-932 share-group assignor that records every call the broker makes
 * (the thread, the members, their subscriptions and current assignment,
 * which partitions the broker says are assignable) and then answers with
 * the broker's own {@link SimpleAssignor}. Loaded from
 * {@code group.share.assignors}.
 */
public final class ProbeShareAssignor extends Probe implements ShareGroupPartitionAssignor {
  private final SimpleAssignor simple = new SimpleAssignor();
  @Override
  public GroupAssignment assign(GroupSpec spec, SubscribedTopicDescriber topics) throws PartitionAssignorException {
    StringBuilder b = new StringBuilder("share")
        .append("\tthread=").append(Thread.currentThread().getName())
        .append("\tmembers=").append(spec.memberIds().size())
        .append("\tsubscriptionType=").append(spec.subscriptionType());
    TreeSet<Uuid> all = new TreeSet<>();
    for (String id : new TreeSet<>(spec.memberIds())) {
      MemberSubscription m = spec.memberSubscription(id);
      all.addAll(m.subscribedTopicIds());
      b.append("\n member=").append(id)
          .append("\tinstance=").append(m.instanceId().orElse("-"))
          .append("\track=").append(m.rackId().orElse("-"))
          .append("\ttopics=").append(m.subscribedTopicIds().size())
          .append("\tcurrent=").append(partitions(spec.memberAssignment(id).partitions()));
    }
    for (Uuid t : all) {
      int n = topics.numPartitions(t);
      int assignable = 0;
      int assigned = 0;
      for (int p = 0; p < n; p++) {
        assignable += spec.isPartitionAssignable(t, p) ? 1 : 0;
        assigned += spec.isPartitionAssigned(t, p) ? 1 : 0;
      }
      b.append("\n topic=").append(t).append("\tpartitions=").append(n)
          .append("\tassignable=").append(assignable).append("\tassigned=").append(assigned)
          .append("\treplicaRacks0=").append(n > 0 ? new TreeSet<>(topics.racksForPartition(t, 0)) : "-");
    }
    GroupAssignment out = simple.assign(spec, topics);
    for (var e : new TreeMap<>(out.members()).entrySet()) {
      b.append("\n target=").append(e.getKey()).append("\tpartitions=").append(partitions(e.getValue().partitions()));
    }
    log.write(b.toString());
    return out;
  }

  private static int partitions(Map<Uuid, java.util.Set<Integer>> p) {
    return p.values().stream().mapToInt(java.util.Set::size).sum();
  }
}
