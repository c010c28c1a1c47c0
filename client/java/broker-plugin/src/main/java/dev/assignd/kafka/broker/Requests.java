package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.PartitionRacks;
import assignd.v1.Assignment.Topic;
import assignd.v1.Assignment.TopicPartitions;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * Translates what the group coordinator hands a KIP-848 assignor into an
 * assignd request, and assignd's answer back into a {@link GroupAssignment}.
 *
 * <p>What the broker gives (Kafka 4.1.1's {@link GroupSpec} and
 * {@link SubscribedTopicDescriber}): member ids, each member's instance id,
 * rack, subscribed topic ids and current assignment, partition counts and
 * replica racks by topic id, and the subscription type. What it does not:
 * the group id, the group epoch, topic names. So topics go to assignd named
 * by their topic id (its base64 form, {@link Uuid#toString()}), which is
 * unique and stable for the life of a topic; the group id is the plugin
 * instance's configured label; the generation is left out.
 *
 * <p>The subscription type is not sent: it is what the members' topic
 * lists say, which assignd reads itself.
 */
final class Requests {
  private Requests() {}

  /** The request and what is needed to read its answer. */
  record Built(AssignRequest request, Map<String, Uuid> topicIds, Map<String, Integer> partitions,
      Map<String, Set<String>> subscriptions) implements PluginCall.Built {}

  /**
   * Builds the request: members sorted by id, topics by id string, so that
   * the same group gives the same bytes whatever order the broker's
   * collections iterate in.
   */
  static Built build(String groupId, String protocolName, GroupSpec spec, SubscribedTopicDescriber topics) {
    List<String> ids = new ArrayList<>(spec.memberIds());
    Collections.sort(ids);
    Map<String, Uuid> byName = new TreeMap<>();
    Map<String, Set<String>> subscriptions = new HashMap<>(ids.size() * 2);
    boolean racks = false;
    for (String id : ids) {
      MemberSubscription sub = spec.memberSubscription(id);
      Set<String> names = new TreeSet<>();
      for (Uuid t : sub.subscribedTopicIds()) {
        String n = t.toString();
        names.add(n);
        byName.putIfAbsent(n, t);
      }
      subscriptions.put(id, names);
      racks |= sub.rackId().isPresent();
    }
    AssignRequest.Builder req = AssignRequest.newBuilder()
        .setGroupId(groupId)
        .setProtocolName(protocolName)
        .setTargetAssignment(true);
    Map<String, Integer> partitions = new HashMap<>(byName.size() * 2);
    for (Map.Entry<String, Uuid> e : byName.entrySet()) {
      int n = topics.numPartitions(e.getValue());
      if (n < 0) {
        continue; // deleted or unknown: as the built-in assignors, nothing to assign
      }
      partitions.put(e.getKey(), n);
      Topic.Builder t = Topic.newBuilder().setName(e.getKey()).setPartitionCount(n);
      if (racks) {
        for (int p = 0; p < n; p++) {
          Set<String> rs = topics.racksForPartition(e.getValue(), p);
          if (!rs.isEmpty()) {
            t.addPartitionRacks(PartitionRacks.newBuilder().setPartition(p).addAllRacks(new TreeSet<>(rs)));
          }
        }
      }
      req.addTopics(t);
    }
    for (String id : ids) {
      MemberSubscription sub = spec.memberSubscription(id);
      Member.Builder m = Member.newBuilder().setMemberId(id).addAllTopics(subscriptions.get(id));
      sub.instanceId().ifPresent(m::setGroupInstanceId);
      sub.rackId().ifPresent(m::setRackId);
      Map<String, Set<Integer>> owned = new TreeMap<>();
      for (Map.Entry<Uuid, Set<Integer>> e : spec.memberAssignment(id).partitions().entrySet()) {
        String n = e.getKey().toString();
        if (partitions.containsKey(n) && !e.getValue().isEmpty()) {
          owned.put(n, new TreeSet<>(e.getValue()));
        }
      }
      for (Map.Entry<String, Set<Integer>> e : owned.entrySet()) {
        m.addOwnedPartitions(TopicPartitions.newBuilder().setTopic(e.getKey()).addAllPartitions(e.getValue()));
      }
      req.addMembers(m);
    }
    return new Built(req.build(), byName, partitions, subscriptions);
  }

  /**
   * Reads assignd's answer: every member of the request exactly once, only
   * topics the member subscribes to and partitions that exist, no partition
   * twice.
   *
   * @throws IllegalStateException naming what is wrong, when the answer is
   *     not a valid target of this group
   */
  static GroupAssignment toAssignment(Built b, AssignResponse resp) {
    if (!resp.getTargetAssignment()) {
      throw new NotTarget();
    }
    Map<String, org.apache.kafka.coordinator.group.api.assignor.MemberAssignment> out =
        new HashMap<>(b.subscriptions.size() * 2);
    Map<String, BitSet> taken = new HashMap<>();
    for (MemberAssignment ma : resp.getAssignmentsList()) {
      String id = ma.getMemberId();
      Set<String> subscribed = b.subscriptions.get(id);
      if (subscribed == null) {
        throw new IllegalStateException("assignd answered for member " + id + ", which is not in the group");
      }
      Map<Uuid, Set<Integer>> parts = new HashMap<>();
      for (TopicPartitions tp : ma.getPartitionsList()) {
        Integer n = b.partitions.get(tp.getTopic());
        if (n == null || !subscribed.contains(tp.getTopic())) {
          throw new IllegalStateException("assignd gave member " + id + " topic " + tp.getTopic() + ", which it does not subscribe to");
        }
        BitSet seen = taken.computeIfAbsent(tp.getTopic(), k -> new BitSet(n));
        Set<Integer> ps = new HashSet<>(tp.getPartitionsCount() * 2);
        for (int p : tp.getPartitionsList()) {
          if (p < 0 || p >= n) {
            throw new IllegalStateException("assignd gave member " + id + " partition " + p + " of topic " + tp.getTopic() + ", which has " + n);
          }
          if (seen.get(p)) {
            throw new IllegalStateException("assignd gave partition " + p + " of topic " + tp.getTopic() + " twice");
          }
          seen.set(p);
          ps.add(p);
        }
        if (!ps.isEmpty()) {
          parts.merge(b.topicIds.get(tp.getTopic()), ps, (x, y) -> {
            x.addAll(y);
            return x;
          });
        }
      }
      if (out.put(id, new Target(Collections.unmodifiableMap(parts))) != null) {
        throw new IllegalStateException("assignd answered twice for member " + id);
      }
    }
    if (out.size() != b.subscriptions.size()) {
      for (String id : b.subscriptions.keySet()) {
        if (!out.containsKey(id)) {
          throw new IllegalStateException("assignd's answer misses member " + id);
        }
      }
    }
    return new GroupAssignment(out);
  }

  /** One member's target, as the coordinator reads it. */
  record Target(Map<Uuid, Set<Integer>> partitions)
      implements org.apache.kafka.coordinator.group.api.assignor.MemberAssignment {}

  /** assignd answered without target_assignment: it predates the mode. */
  static final class NotTarget extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotTarget() {
      super("assignd does not know target assignments (AssignRequest.target_assignment): upgrade it");
    }
  }
}
