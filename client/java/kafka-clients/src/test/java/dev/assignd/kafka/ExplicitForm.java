package dev.assignd.kafka;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.TopicPartitions;
import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * The same group in the explicit member form, field by field (topics,
 * owned partitions, user data, generation, rack, instance id), asking for
 * the full view: what the leader sent before it sent the raw form, kept as
 * the reference the raw form's plans are checked against.
 */
final class ExplicitForm {
  private ExplicitForm() {}

  static AssignRequest request(String groupId, String protocolName, ConsumerPartitionAssignor.RebalanceProtocol protocol,
      Map<String, List<PartitionInfo>> partitionsPerTopic, Map<String, Subscription> subscriptions) {
    AssignRequest.Builder req = AssignRequests.header(groupId, protocolName, protocol).setView(AssignmentView.ASSIGNMENT_VIEW_FULL);
    Set<String> topics = new TreeSet<>();
    boolean anyRack = false;
    for (Map.Entry<String, Subscription> e : new TreeMap<>(subscriptions).entrySet()) {
      Subscription s = e.getValue();
      Member.Builder m = Member.newBuilder().setMemberId(e.getKey()).addAllTopics(s.topics());
      s.groupInstanceId().ifPresent(m::setGroupInstanceId);
      Map<String, List<Integer>> owned = new TreeMap<>();
      s.ownedPartitions().forEach(tp -> owned.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition()));
      owned.forEach((t, ps) -> m.addOwnedPartitions(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps)));
      ByteBuffer ud = s.userData();
      if (ud != null && ud.hasRemaining()) {
        m.setUserData(ByteString.copyFrom(ud.duplicate()));
      }
      s.generationId().ifPresent(m::setGeneration);
      if (s.rackId().isPresent()) {
        m.setRackId(s.rackId().get());
        anyRack = true;
      }
      topics.addAll(s.topics());
      req.addMembers(m);
    }
    return req.addAllTopics(AssignRequests.topics(partitionsPerTopic, topics, anyRack)).build();
  }

  /** Each member's partitions from the full view's decoded lists, in the response's order. */
  static Map<String, List<TopicPartition>> partitions(AssignResponse resp) {
    Map<String, List<TopicPartition>> out = new TreeMap<>();
    for (MemberAssignment ma : resp.getAssignmentsList()) {
      List<TopicPartition> l = new ArrayList<>();
      ma.getPartitionsList().forEach(tps -> tps.getPartitionsList().forEach(p -> l.add(new TopicPartition(tps.getTopic(), p))));
      out.put(ma.getMemberId(), l);
    }
    return out;
  }
}
