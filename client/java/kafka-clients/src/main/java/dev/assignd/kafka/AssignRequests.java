package dev.assignd.kafka;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.PartitionRacks;
import assignd.v1.Assignment.RebalanceProtocol;
import assignd.v1.Assignment.Topic;
import assignd.v1.Assignment.TopicPartitions;
import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Builds the Assign request from what kafka-clients hands an assignor, and
 * reads the response back into a {@link GroupAssignment}.
 *
 * <p>The Java consumer gives the leader decoded subscriptions, not the
 * JoinGroup bytes, so every member goes in the explicit form (topics, owned
 * partitions, user data, generation, rack, static instance id); see
 * docs/other-languages.md.
 */
final class AssignRequests {
  private AssignRequests() {}

  /**
   * The request for one rebalance. partitionsPerTopic is what kafka-clients'
   * AbstractPartitionAssignor hands the assignment: the subscribed topics
   * that have metadata, with their partitions (and replicas) from the
   * leader's Cluster; a subscribed topic without metadata is left out, as
   * Java's assignors skip it (assignd warns).
   */
  static AssignRequest build(String groupId, String protocolName, ConsumerPartitionAssignor.RebalanceProtocol protocol,
      Map<String, List<PartitionInfo>> partitionsPerTopic, Map<String, Subscription> subscriptions) {
    AssignRequest.Builder req = AssignRequest.newBuilder()
        .setProtocolName(protocolName)
        .setRebalanceProtocol(protocol == ConsumerPartitionAssignor.RebalanceProtocol.COOPERATIVE
            ? RebalanceProtocol.REBALANCE_PROTOCOL_COOPERATIVE
            : RebalanceProtocol.REBALANCE_PROTOCOL_EAGER)
        .setView(AssignmentView.ASSIGNMENT_VIEW_FULL);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    // Sorted by member id, so the same group gives the same request bytes.
    Map<String, Subscription> subs = new TreeMap<>(subscriptions);
    Set<String> topics = new TreeSet<>();
    boolean anyRack = false;
    for (Map.Entry<String, Subscription> e : subs.entrySet()) {
      Subscription s = e.getValue();
      Member.Builder m = Member.newBuilder().setMemberId(e.getKey());
      s.groupInstanceId().ifPresent(m::setGroupInstanceId);
      m.addAllTopics(s.topics());
      topics.addAll(s.topics());
      m.addAllOwnedPartitions(byTopic(s.ownedPartitions()));
      ByteBuffer ud = s.userData();
      if (ud != null && ud.hasRemaining()) {
        // duplicate(): the built-in assignor may still read this buffer if we fall back.
        m.setUserData(ByteString.copyFrom(ud.duplicate()));
      }
      s.generationId().ifPresent(m::setGeneration);
      if (s.rackId().isPresent()) {
        m.setRackId(s.rackId().get());
        anyRack = true;
      }
      req.addMembers(m);
    }
    for (String t : topics) {
      List<PartitionInfo> parts = partitionsPerTopic.get(t);
      if (parts == null || parts.isEmpty()) {
        continue;
      }
      Topic.Builder tb = Topic.newBuilder().setName(t).setPartitionCount(parts.size());
      // KIP-881: replica racks matter only when some member has a rack.
      if (anyRack) {
        List<PartitionInfo> sorted = new ArrayList<>(parts);
        sorted.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
        for (PartitionInfo p : sorted) {
          Set<String> racks = new LinkedHashSet<>();
          if (p.replicas() != null) {
            for (Node n : p.replicas()) {
              if (n != null && n.hasRack()) {
                racks.add(n.rack());
              }
            }
          }
          if (!racks.isEmpty()) {
            tb.addPartitionRacks(PartitionRacks.newBuilder().setPartition(p.partition()).addAllRacks(racks));
          }
        }
      }
      req.addTopics(tb);
    }
    return req.build();
  }

  static List<TopicPartitions> byTopic(List<TopicPartition> tps) {
    Map<String, List<Integer>> m = new TreeMap<>();
    for (TopicPartition tp : tps) {
      m.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
    }
    List<TopicPartitions> out = new ArrayList<>(m.size());
    for (Map.Entry<String, List<Integer>> e : m.entrySet()) {
      out.add(TopicPartitions.newBuilder().setTopic(e.getKey()).addAllPartitions(e.getValue()).build());
    }
    return out;
  }

  /**
   * The response as the partitions of each member of the group. The
   * assignment's user data is not carried over: Java's built-in assignors
   * put none in their assignments (sticky's user data travels in the
   * subscription), so their members expect none.
   *
   * @throws IllegalStateException when the response does not name every
   *     member of the group exactly once, or names one that is not in it
   */
  static Map<String, List<TopicPartition>> toAssignments(AssignResponse resp, Map<String, Subscription> subs) {
    Map<String, List<TopicPartition>> out = new HashMap<>();
    for (MemberAssignment ma : resp.getAssignmentsList()) {
      if (!subs.containsKey(ma.getMemberId())) {
        throw new IllegalStateException("response names member " + ma.getMemberId() + ", not in the group");
      }
      List<TopicPartition> parts = new ArrayList<>();
      for (TopicPartitions tp : ma.getPartitionsList()) {
        for (int p : tp.getPartitionsList()) {
          parts.add(new TopicPartition(tp.getTopic(), p));
        }
      }
      if (out.put(ma.getMemberId(), parts) != null) {
        throw new IllegalStateException("response names member " + ma.getMemberId() + " twice");
      }
    }
    if (out.size() != subs.size()) {
      Set<String> missing = new TreeSet<>(subs.keySet());
      missing.removeAll(out.keySet());
      throw new IllegalStateException("response has no assignment for members " + missing);
    }
    return out;
  }
}
