package dev.assignd.kafka;

import static dev.assignd.kafka.Groups.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.RebalanceProtocol;
import assignd.v1.Assignment.TopicPartitions;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;
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
  void explicitMembersSortedWithEverythingTheySaid() {
    ByteBuffer ud = ByteBuffer.wrap(new byte[] {0, 0, 0, 7});
    Subscription a = new Subscription(List.of("t2", "t1"), ud, List.of(tp("t2", 1), tp("t1", 0), tp("t1", 3)), 7, Optional.empty());
    a.setGroupInstanceId(Optional.of("static-a"));
    Subscription b = new Subscription(List.of("t1"));
    Map<String, Subscription> subs = Map.of("b", b, "a", a);
    AssignRequest req = AssignRequests.build("g", "cooperative-sticky", ConsumerPartitionAssignor.RebalanceProtocol.COOPERATIVE,
        partitions(Groups.cluster(), "t1", "t2"), subs);

    assertEquals("g", req.getGroupId());
    assertEquals(RebalanceProtocol.REBALANCE_PROTOCOL_COOPERATIVE, req.getRebalanceProtocol());
    assertEquals(List.of("a", "b"), req.getMembersList().stream().map(Member::getMemberId).toList());
    Member ma = req.getMembers(0);
    assertEquals("static-a", ma.getGroupInstanceId());
    assertEquals(List.of("t2", "t1"), ma.getTopicsList());
    assertEquals(List.of(TopicPartitions.newBuilder().setTopic("t1").addPartitions(0).addPartitions(3).build(),
        TopicPartitions.newBuilder().setTopic("t2").addPartitions(1).build()), ma.getOwnedPartitionsList());
    assertEquals(7, ma.getGeneration());
    assertEquals(4, ma.getUserData().size());
    assertEquals(0, ud.position(), "the user data buffer is left for the built-in assignor to read");
    assertFalse(ma.hasRackId());
    Member mb = req.getMembers(1);
    assertFalse(mb.hasGeneration(), "no generation: absent, not -1");
    assertFalse(mb.hasGroupInstanceId());
    assertTrue(mb.getUserData().isEmpty());
    assertEquals(List.of("t1", "t2"), req.getTopicsList().stream().map(t -> t.getName()).toList());
    assertEquals(6, req.getTopics(0).getPartitionCount());
    assertTrue(req.getTopics(0).getPartitionRacksList().isEmpty(), "no member has a rack: no replica racks");
  }

  @Test
  void replicaRacksWhenAMemberHasARack() {
    Subscription a = new Subscription(List.of("t3"), null, List.of(), -1, Optional.of("rack-a"));
    AssignRequest req = AssignRequests.build("g", "range", ConsumerPartitionAssignor.RebalanceProtocol.EAGER,
        partitions(Groups.cluster(), "t3"), Map.of("a", a));
    assertEquals("rack-a", req.getMembers(0).getRackId());
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
    assertEquals(List.of("t1", "missing"), req.getMembers(0).getTopicsList());
  }

  private static MemberAssignment ma(String id, int... ps) {
    TopicPartitions.Builder tp = TopicPartitions.newBuilder().setTopic("t1");
    for (int p : ps) {
      tp.addPartitions(p);
    }
    return MemberAssignment.newBuilder().setMemberId(id).addPartitions(tp).build();
  }

  @Test
  void responsesMustNameEveryMemberOnce() {
    Map<String, Subscription> subs = Map.of("a", new Subscription(List.of("t1")), "b", new Subscription(List.of("t1")));
    var ok = AssignRequests.toAssignments(AssignResponse.newBuilder().addAssignments(ma("a", 0, 1)).addAssignments(ma("b", 2)).build(), subs);
    assertEquals(List.of(tp("t1", 0), tp("t1", 1)), ok.get("a"));
    assertEquals(List.of(tp("t1", 2)), ok.get("b"));
    assertThrows(IllegalStateException.class,
        () -> AssignRequests.toAssignments(AssignResponse.newBuilder().addAssignments(ma("a", 0)).build(), subs), "missing b");
    assertThrows(IllegalStateException.class, () -> AssignRequests.toAssignments(
        AssignResponse.newBuilder().addAssignments(ma("a", 0)).addAssignments(ma("b")).addAssignments(ma("c")).build(), subs), "unknown c");
    assertThrows(IllegalStateException.class, () -> AssignRequests.toAssignments(
        AssignResponse.newBuilder().addAssignments(ma("a", 0)).addAssignments(ma("a", 1)).build(), subs), "a twice");
  }
}
