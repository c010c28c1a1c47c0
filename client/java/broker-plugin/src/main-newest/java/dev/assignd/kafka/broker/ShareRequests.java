package dev.assignd.kafka.broker;

import assignd.v1.ShareAssignment.AssignShareRequest;
import assignd.v1.ShareAssignment.AssignShareResponse;
import assignd.v1.ShareAssignment.ShareMember;
import assignd.v1.ShareAssignment.ShareMemberAssignment;
import assignd.v1.ShareAssignment.SharePartitions;
import assignd.v1.ShareAssignment.ShareTopic;
import assignd.v1.TaskAssignment.GroupType;
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
 * Translates what the group coordinator hands a share-group assignor
 * (KIP-932: the consumer groups' {@link GroupSpec} and
 * {@link SubscribedTopicDescriber}, with {@code isPartitionAssignable})
 * into an AssignShare request, and assignd's answer back into a
 * {@link GroupAssignment}. Topics are named by their topic id, as
 * {@link Requests} names them for consumer groups: the broker gives an
 * assignor no topic names.
 */
final class ShareRequests {
  private ShareRequests() {}

  /** The request and the topic ids its names stand for. */
  record Built(AssignShareRequest request, Map<String, Uuid> topicIds) implements PluginCall.Built {}

  /** Builds the request: members sorted by id, topics by id string, so that the same group gives the same bytes. */
  static Built build(ShareConfig c, GroupSpec spec, SubscribedTopicDescriber topics) {
    List<String> ids = new ArrayList<>(spec.memberIds());
    Collections.sort(ids);
    Map<String, Uuid> byName = new TreeMap<>();
    for (String id : ids) {
      for (Uuid t : spec.memberSubscription(id).subscribedTopicIds()) {
        byName.putIfAbsent(t.toString(), t);
      }
    }
    AssignShareRequest.Builder req = AssignShareRequest.newBuilder()
        .setGroupId(c.groupId).setGroupType(GroupType.GROUP_TYPE_SHARE).setAssignor(c.assignor);
    Map<String, Uuid> known = new TreeMap<>();
    for (Map.Entry<String, Uuid> e : byName.entrySet()) {
      int n = topics.numPartitions(e.getValue());
      if (n < 0) {
        continue; // deleted or unknown: nothing to assign, as the built-in does
      }
      known.put(e.getKey(), e.getValue());
      ShareTopic.Builder t = ShareTopic.newBuilder().setName(e.getKey()).setPartitionCount(n);
      for (int p = 0; p < n; p++) {
        // KIP-932: a partition is assignable once its share-partition
        // state is initialised, which the coordinator does asynchronously.
        if (!spec.isPartitionAssignable(e.getValue(), p)) {
          t.addUnassignablePartitions(p);
        }
      }
      req.addTopics(t);
    }
    for (String id : ids) {
      MemberSubscription sub = spec.memberSubscription(id);
      ShareMember.Builder m = ShareMember.newBuilder().setMemberId(id);
      new TreeSet<>(sub.subscribedTopicIds().stream().map(Uuid::toString).toList()).forEach(m::addTopics);
      Map<String, Set<Integer>> current = new TreeMap<>();
      for (Map.Entry<Uuid, Set<Integer>> e : spec.memberAssignment(id).partitions().entrySet()) {
        if (known.containsKey(e.getKey().toString()) && !e.getValue().isEmpty()) {
          current.put(e.getKey().toString(), new TreeSet<>(e.getValue()));
        }
      }
      current.forEach((t, ps) -> m.addCurrentPartitions(SharePartitions.newBuilder().setTopic(t).addAllPartitions(ps)));
      req.addMembers(m);
    }
    return new Built(req.build(), known);
  }

  /**
   * Reads assignd's answer, checking it against the request: every member
   * exactly once; only topics the member subscribes to and assignable
   * partitions that exist, none twice for one member; and every assignable
   * partition of a subscribed topic given to some member, so that no
   * record waits for a consumer.
   *
   * @throws IllegalStateException naming what is wrong, when the answer is
   *     not a valid assignment of this group
   */
  static GroupAssignment toAssignment(Built b, AssignShareResponse resp) {
    AssignShareRequest req = b.request();
    Map<String, ShareTopic> topics = new HashMap<>();
    for (ShareTopic t : req.getTopicsList()) {
      topics.put(t.getName(), t);
    }
    Map<String, Set<String>> subscriptions = new HashMap<>();
    Map<String, BitSet> wanted = new HashMap<>();
    for (ShareMember m : req.getMembersList()) {
      subscriptions.put(m.getMemberId(), new HashSet<>(m.getTopicsList()));
      for (String t : m.getTopicsList()) {
        ShareTopic st = topics.get(t);
        if (st != null && !wanted.containsKey(t)) {
          BitSet w = new BitSet(st.getPartitionCount());
          w.set(0, st.getPartitionCount());
          st.getUnassignablePartitionsList().forEach(w::clear);
          wanted.put(t, w);
        }
      }
    }
    Map<String, org.apache.kafka.coordinator.group.api.assignor.MemberAssignment> out = new HashMap<>();
    for (ShareMemberAssignment ma : resp.getAssignmentsList()) {
      String id = ma.getMemberId();
      Set<String> subscribed = subscriptions.get(id);
      if (subscribed == null) {
        throw new IllegalStateException("assignd answered for member " + id + ", which is not in the group");
      }
      Map<Uuid, Set<Integer>> parts = new HashMap<>();
      for (SharePartitions tp : ma.getPartitionsList()) {
        BitSet assignable = wanted.get(tp.getTopic());
        if (assignable == null || !subscribed.contains(tp.getTopic())) {
          throw new IllegalStateException("assignd gave member " + id + " topic " + tp.getTopic() + ", which it does not subscribe to");
        }
        Set<Integer> ps = parts.computeIfAbsent(b.topicIds().get(tp.getTopic()), k -> new HashSet<>());
        int n = topics.get(tp.getTopic()).getPartitionCount();
        for (int p : tp.getPartitionsList()) {
          if (p < 0 || p >= n || !assignable.get(p)) {
            throw new IllegalStateException("assignd gave member " + id + " partition " + p + " of topic " + tp.getTopic()
                + ", which is not an assignable partition");
          }
          if (!ps.add(p)) {
            throw new IllegalStateException("assignd gave member " + id + " partition " + p + " of topic " + tp.getTopic() + " twice");
          }
        }
      }
      if (out.put(id, new Requests.Target(Collections.unmodifiableMap(parts))) != null) {
        throw new IllegalStateException("assignd answered twice for member " + id);
      }
    }
    for (String id : subscriptions.keySet()) {
      if (!out.containsKey(id)) {
        throw new IllegalStateException("assignd's answer misses member " + id);
      }
    }
    // Every assignable partition of a subscribed topic has a member.
    Map<String, BitSet> given = new HashMap<>();
    for (ShareMemberAssignment ma : resp.getAssignmentsList()) {
      for (SharePartitions tp : ma.getPartitionsList()) {
        BitSet g = given.computeIfAbsent(tp.getTopic(), k -> new BitSet());
        tp.getPartitionsList().forEach(g::set);
      }
    }
    for (Map.Entry<String, BitSet> e : wanted.entrySet()) {
      BitSet missing = (BitSet) e.getValue().clone();
      missing.andNot(given.getOrDefault(e.getKey(), new BitSet()));
      if (!missing.isEmpty()) {
        throw new IllegalStateException("assignd gave partition " + missing.nextSetBit(0) + " of topic " + e.getKey() + " to no member");
      }
    }
    return new GroupAssignment(out);
  }
}
