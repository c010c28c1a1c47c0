package dev.assignd.kafka.broker;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/** A consumer group as the coordinator hands it to an assignor, written by hand. */
class FakeGroup implements GroupSpec, SubscribedTopicDescriber {
  /** The tests' topics' ids. */
  static final Uuid A = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
  static final Uuid B = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
  record Sub(Optional<String> rackId, Optional<String> instanceId, Set<Uuid> subscribedTopicIds) implements MemberSubscription {}

  record Owned(Map<Uuid, Set<Integer>> partitions) implements MemberAssignment {}

  final Map<String, Sub> members = new LinkedHashMap<>();
  final Map<String, Owned> current = new HashMap<>();
  final Map<Uuid, Integer> topics = new LinkedHashMap<>();
  final Map<Uuid, Set<String>> racks = new HashMap<>();
  /** Partitions, as topic id "-" partition, whose share-partition state is not initialised (share groups, KIP-932). */
  final Set<String> unassignable = new HashSet<>();

  FakeGroup topic(Uuid id, int partitions) {
    topics.put(id, partitions);
    return this;
  }

  FakeGroup member(String id, Uuid... subscribed) {
    return member(id, null, null, subscribed);
  }

  FakeGroup member(String id, String instance, String rack, Uuid... subscribed) {
    members.put(id, new Sub(Optional.ofNullable(rack), Optional.ofNullable(instance), Set.of(subscribed)));
    return this;
  }

  FakeGroup remove(String id) {
    members.remove(id);
    current.remove(id);
    return this;
  }

  /** Sets every member's current assignment to a's, as the coordinator does between epochs. */
  FakeGroup current(GroupAssignment a) {
    current.clear();
    a.members().forEach((id, m) -> {
      if (members.containsKey(id)) {
        current.put(id, new Owned(Collections.unmodifiableMap(new HashMap<>(m.partitions()))));
      }
    });
    return this;
  }

  @Override
  public Collection<String> memberIds() {
    return members.keySet();
  }

  @Override
  public SubscriptionType subscriptionType() {
    Set<Set<Uuid>> subs = new HashSet<>();
    members.values().forEach(s -> subs.add(s.subscribedTopicIds()));
    return subs.size() <= 1 ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
  }

  @Override
  public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
    for (Owned o : current.values()) {
      if (o.partitions().getOrDefault(topicId, Set.of()).contains(partitionId)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
    return !unassignable.contains(topicId + "-" + partitionId);
  }

  @Override
  public MemberSubscription memberSubscription(String memberId) {
    Sub s = members.get(memberId);
    if (s == null) {
      throw new IllegalArgumentException(memberId);
    }
    return s;
  }

  @Override
  public MemberAssignment memberAssignment(String memberId) {
    return current.getOrDefault(memberId, new Owned(Collections.emptyMap()));
  }

  @Override
  public int numPartitions(Uuid topicId) {
    return topics.getOrDefault(topicId, -1);
  }

  @Override
  public Set<String> racksForPartition(Uuid topicId, int partition) {
    return racks.getOrDefault(topicId, Set.of());
  }

  /** Checks that a assigns every partition of every subscribed topic exactly once, to a subscriber. */
  String violations(GroupAssignment a) {
    StringBuilder b = new StringBuilder();
    Map<String, String> owner = new HashMap<>();
    if (!a.members().keySet().equals(members.keySet())) {
      b.append("members ").append(a.members().keySet()).append(" != ").append(members.keySet()).append("; ");
    }
    a.members().forEach((id, m) -> m.partitions().forEach((t, ps) -> {
      Sub s = members.get(id);
      if (s == null || !s.subscribedTopicIds().contains(t)) {
        b.append(id).append(" gets ").append(t).append(" unsubscribed; ");
      }
      for (int p : ps) {
        String prev = owner.put(t + "-" + p, id);
        if (prev != null) {
          b.append(t).append("-").append(p).append(" twice; ");
        }
      }
    }));
    Set<Uuid> subscribed = new HashSet<>();
    members.values().forEach(s -> subscribed.addAll(s.subscribedTopicIds()));
    for (Uuid t : subscribed) {
      for (int p = 0; p < topics.getOrDefault(t, 0); p++) {
        if (!owner.containsKey(t + "-" + p)) {
          b.append(t).append("-").append(p).append(" unassigned; ");
        }
      }
    }
    return b.toString();
  }
}
