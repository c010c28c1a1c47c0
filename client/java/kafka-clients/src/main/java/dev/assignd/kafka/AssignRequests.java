package dev.assignd.kafka;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.PartitionRacks;
import assignd.v1.Assignment.RebalanceProtocol;
import assignd.v1.Assignment.Topic;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
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
 * reads the response back into each member's partitions.
 *
 * <p>Every member goes in the raw form: its ConsumerProtocolSubscription
 * bytes, which assignd decodes itself, and the answer comes back encoded
 * ({@code ASSIGNMENT_VIEW_ENCODED}), the ConsumerProtocolAssignment bytes of
 * each member, read back into its partitions. kafka-clients hands the
 * leader decoded subscriptions, not the JoinGroup bytes, so they are
 * written back ({@link SubscriptionWriter}, the bytes of kafka-clients' own
 * {@code ConsumerProtocol}): for a Java member these are the bytes it sent,
 * and the request costs what the JoinGroup bytes cost.
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
    AssignRequest.Builder req = header(groupId, protocolName, protocol).setView(AssignmentView.ASSIGNMENT_VIEW_ENCODED);
    // Sorted by member id, so the same group gives the same request bytes.
    Map<String, Subscription> subs = new TreeMap<>(subscriptions);
    // A hash set, sorted once by topics(): members mostly name the same topics.
    Set<String> topics = new HashSet<>();
    boolean anyRack = false;
    SubscriptionWriter writer = new SubscriptionWriter();
    for (Map.Entry<String, Subscription> e : subs.entrySet()) {
      Subscription s = e.getValue();
      Member.Builder m = Member.newBuilder().setMemberId(e.getKey());
      // The instance id (KIP-345) travels in JoinGroup beside the metadata, not in it.
      s.groupInstanceId().ifPresent(m::setGroupInstanceId);
      // The writer reads the user data through a duplicate, so the built-in
      // assignor can still read it if the call fails; the array is new and
      // nobody else holds it, so it is wrapped, not copied.
      m.setMetadata(UnsafeByteOperations.unsafeWrap(writer.write(s)));
      topics.addAll(s.topics());
      anyRack |= s.rackId().isPresent();
      req.addMembers(m);
    }
    return req.addAllTopics(topics(partitionsPerTopic, topics, anyRack)).build();
  }

  /** The request's group, protocol name and rebalance protocol, without members, topics or view. */
  static AssignRequest.Builder header(String groupId, String protocolName, ConsumerPartitionAssignor.RebalanceProtocol protocol) {
    AssignRequest.Builder req = AssignRequest.newBuilder()
        .setProtocolName(protocolName)
        .setRebalanceProtocol(protocol == ConsumerPartitionAssignor.RebalanceProtocol.COOPERATIVE
            ? RebalanceProtocol.REBALANCE_PROTOCOL_COOPERATIVE
            : RebalanceProtocol.REBALANCE_PROTOCOL_EAGER);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    return req;
  }

  /**
   * The partition counts of the subscribed topics (sorted by name) that
   * have metadata; with each partition's replica racks when some member has
   * a rack (KIP-881: they matter only then).
   */
  static List<Topic> topics(Map<String, List<PartitionInfo>> partitionsPerTopic, Collection<String> subscribed, boolean anyRack) {
    List<Topic> out = new ArrayList<>();
    for (String t : new TreeSet<>(subscribed)) {
      List<PartitionInfo> parts = partitionsPerTopic.get(t);
      if (parts == null || parts.isEmpty()) {
        continue;
      }
      Topic.Builder tb = Topic.newBuilder().setName(t).setPartitionCount(parts.size());
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
      out.add(tb.build());
    }
    return out;
  }

  /**
   * The response as the partitions of each member of the group, read from
   * each member's ConsumerProtocolAssignment bytes. The assignment's user
   * data is not carried over: Java's built-in assignors put none in their
   * assignments (sticky's user data travels in the subscription), so their
   * members expect none.
   *
   * @throws IllegalStateException when the response does not name every
   *     member of the group exactly once, names one that is not in it, or
   *     gives one bytes that are not an assignment
   */
  static Map<String, List<TopicPartition>> toAssignments(AssignResponse resp, Map<String, Subscription> subs) {
    Map<String, List<TopicPartition>> out = new HashMap<>();
    AssignmentReader reader = new AssignmentReader();
    for (MemberAssignment ma : resp.getAssignmentsList()) {
      String id = ma.getMemberId();
      if (!subs.containsKey(id)) {
        throw new IllegalStateException("response names member " + id + ", not in the group");
      }
      if (out.put(id, decode(reader, id, ma.getAssignment())) != null) {
        throw new IllegalStateException("response names member " + id + " twice");
      }
    }
    if (out.size() != subs.size()) {
      Set<String> missing = new TreeSet<>(subs.keySet());
      missing.removeAll(out.keySet());
      throw new IllegalStateException("response has no assignment for members " + missing);
    }
    return out;
  }

  private static List<TopicPartition> decode(AssignmentReader reader, String member, ByteString bytes) {
    if (bytes.isEmpty()) {
      throw new IllegalStateException("response has no assignment bytes for member " + member);
    }
    try {
      return reader.partitions(bytes.toByteArray());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("response's assignment of member " + member + " is not a ConsumerProtocolAssignment: "
          + e.getMessage());
    }
  }
}
