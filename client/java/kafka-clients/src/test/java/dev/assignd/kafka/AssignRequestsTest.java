package dev.assignd.kafka;

import static dev.assignd.kafka.Groups.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.RebalanceProtocol;
import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The request built from what kafka-clients hands an assignor, and the response read back; no server needed. */
class AssignRequestsTest {
  private static Map<String, List<PartitionInfo>> partitions(Cluster c, String... topics) {
    Map<String, List<PartitionInfo>> m = new HashMap<>();
    for (String t : topics) {
      m.put(t, c.partitionsForTopic(t));
    }
    return m;
  }

  @Test
  void rawMembersSortedWithEverythingTheySaid() {
    ByteBuffer ud = ByteBuffer.wrap(new byte[] {0, 0, 0, 7});
    Subscription a = new Subscription(List.of("t2", "t1"), ud, List.of(tp("t2", 1), tp("t1", 0), tp("t1", 3)), 7, Optional.of("rack-a"));
    a.setGroupInstanceId(Optional.of("static-a"));
    Subscription b = new Subscription(List.of("t1"));
    Map<String, Subscription> subs = Map.of("b", b, "a", a);
    AssignRequest req = AssignRequests.build("g", "cooperative-sticky", ConsumerPartitionAssignor.RebalanceProtocol.COOPERATIVE,
        partitions(Groups.cluster(), "t1", "t2"), subs);

    assertEquals("g", req.getGroupId());
    assertEquals(RebalanceProtocol.REBALANCE_PROTOCOL_COOPERATIVE, req.getRebalanceProtocol());
    assertEquals(AssignmentView.ASSIGNMENT_VIEW_ENCODED, req.getView());
    assertEquals(List.of("a", "b"), req.getMembersList().stream().map(Member::getMemberId).toList());
    Member ma = req.getMembers(0);
    assertEquals("static-a", ma.getGroupInstanceId(), "the instance id beside the metadata, as JoinGroup has it");
    assertTrue(ma.getTopicsList().isEmpty() && ma.getOwnedPartitionsList().isEmpty() && !ma.hasGeneration() && !ma.hasRackId(),
        "no explicit fields beside the metadata");
    Subscription back = ConsumerProtocol.deserializeSubscription(ma.getMetadata().asReadOnlyByteBuffer());
    assertEquals(List.of("t1", "t2"), back.topics());
    assertEquals(List.of(tp("t1", 0), tp("t1", 3), tp("t2", 1)), back.ownedPartitions());
    assertEquals(Optional.of(7), back.generationId());
    assertEquals(Optional.of("rack-a"), back.rackId());
    assertEquals(ByteBuffer.wrap(new byte[] {0, 0, 0, 7}), back.userData());
    assertEquals(0, ud.position(), "the user data buffer is left for the built-in assignor to read");
    Member mb = req.getMembers(1);
    assertFalse(mb.hasGroupInstanceId());
    assertEquals(Optional.empty(), ConsumerProtocol.deserializeSubscription(mb.getMetadata().asReadOnlyByteBuffer()).generationId());
    assertEquals(List.of("t1", "t2"), req.getTopicsList().stream().map(t -> t.getName()).toList());
    assertEquals(6, req.getTopics(0).getPartitionCount());
    assertEquals(List.of("rack-a", "rack-b"), req.getTopics(0).getPartitionRacks(0).getRacksList(), "a member has a rack: replica racks go too");
  }

  @Test
  void replicaRacksWhenAMemberHasARack() {
    Subscription a = new Subscription(List.of("t3"), null, List.of(), -1, Optional.of("rack-a"));
    AssignRequest req = AssignRequests.build("g", "range", ConsumerPartitionAssignor.RebalanceProtocol.EAGER,
        partitions(Groups.cluster(), "t3"), Map.of("a", a));
    var racks = req.getTopics(0).getPartitionRacksList();
    assertEquals(3, racks.size());
    assertEquals(0, racks.get(0).getPartition());
    assertEquals(List.of("rack-a", "rack-b"), racks.get(0).getRacksList());
    assertEquals(List.of("rack-c", "rack-a"), racks.get(2).getRacksList());
  }

  @Test
  void topicsWithoutMetadataAreLeftOut() {
    Subscription a = new Subscription(List.of("t1", "missing"));
    AssignRequest req = AssignRequests.build("g", "range", ConsumerPartitionAssignor.RebalanceProtocol.EAGER,
        partitions(Groups.cluster(), "t1"), Map.of("a", a));
    assertEquals(List.of("t1"), req.getTopicsList().stream().map(t -> t.getName()).toList());
  }

  private static MemberAssignment ma(String id, int... ps) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p : ps) {
      tps.add(tp("t1", p));
    }
    ByteString bytes = ByteString.copyFrom(ConsumerProtocol.serializeAssignment(new Assignment(tps)));
    return MemberAssignment.newBuilder().setMemberId(id).setAssignment(bytes).build();
  }

  @Test
  void responsesMustNameEveryMemberOnce() {
    Map<String, Subscription> subs = Map.of("a", new Subscription(List.of("t1")), "b", new Subscription(List.of("t1")));
    var ok = AssignRequests.toAssignments(AssignResponse.newBuilder().addAssignments(ma("a", 0, 1)).addAssignments(ma("b", 2)).build(), subs);
    assertEquals(List.of(tp("t1", 0), tp("t1", 1)), ok.get("a"));
    assertEquals(List.of(tp("t1", 2)), ok.get("b"));
    assertEquals(List.of(), AssignRequests.toAssignments(
        AssignResponse.newBuilder().addAssignments(ma("a", 0, 1, 2)).addAssignments(ma("b")).build(), subs).get("b"));
    assertThrows(IllegalStateException.class,
        () -> AssignRequests.toAssignments(AssignResponse.newBuilder().addAssignments(ma("a", 0)).build(), subs), "missing b");
    assertThrows(IllegalStateException.class, () -> AssignRequests.toAssignments(
        AssignResponse.newBuilder().addAssignments(ma("a", 0)).addAssignments(ma("b")).addAssignments(ma("c")).build(), subs), "unknown c");
    assertThrows(IllegalStateException.class, () -> AssignRequests.toAssignments(
        AssignResponse.newBuilder().addAssignments(ma("a", 0)).addAssignments(ma("a", 1)).build(), subs), "a twice");
  }

  /** An answer without bytes, or with bytes that are not an assignment, is refused naming the member. */
  @Test
  void assignmentBytesMustBeAnAssignment() {
    Map<String, Subscription> subs = Map.of("a", new Subscription(List.of("t1")));
    IllegalStateException none = assertThrows(IllegalStateException.class, () -> AssignRequests.toAssignments(
        AssignResponse.newBuilder().addAssignments(MemberAssignment.newBuilder().setMemberId("a")).build(), subs));
    assertTrue(none.getMessage().contains("member a"), none.getMessage());
    ByteString truncated = ma("a", 0, 1).getAssignment().substring(0, 9);
    IllegalStateException bad = assertThrows(IllegalStateException.class, () -> AssignRequests.toAssignments(
        AssignResponse.newBuilder().addAssignments(MemberAssignment.newBuilder().setMemberId("a").setAssignment(truncated)).build(), subs));
    assertTrue(bad.getMessage().contains("member a"), bad.getMessage());
  }

  /** The reader agrees with kafka-clients' own writer at every version, on random assignments. */
  @Test
  void readsWhatKafkaClientsWrites() {
    java.util.Random r = new java.util.Random(42);
    AssignmentReader reader = new AssignmentReader(); // one for all: its name cache sees every kind of neighbour
    for (int i = 0; i < 200; i++) {
      List<TopicPartition> tps = new ArrayList<>();
      int topics = r.nextInt(6);
      for (int t = 0; t < topics; t++) {
        String name = "t\u00e9-" + r.nextInt(3) + "-" + t;
        for (int p = r.nextInt(5); p >= 0; p--) {
          tps.add(tp(name, r.nextInt(100)));
        }
      }
      ByteBuffer ud = r.nextBoolean() ? null : ByteBuffer.wrap(new byte[r.nextInt(9)]);
      short version = (short) r.nextInt(4);
      ByteBuffer bytes = ConsumerProtocol.serializeAssignment(new Assignment(tps, ud), version);
      byte[] a = new byte[bytes.remaining()];
      bytes.duplicate().get(a);
      assertEquals(ConsumerProtocol.deserializeAssignment(bytes.duplicate()).partitions(), reader.partitions(a),
          "version " + version + ": " + tps);
    }
  }
}
