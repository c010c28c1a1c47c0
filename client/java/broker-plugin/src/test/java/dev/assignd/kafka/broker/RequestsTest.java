package dev.assignd.kafka.broker;

import static dev.assignd.kafka.broker.FakeGroup.A;
import static dev.assignd.kafka.broker.FakeGroup.B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.Member;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The translation alone, without a server. */
class RequestsTest {
  private static final Uuid GONE = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAw");

  // Members sorted by id, topics by id, the mode and labels set; the same
  // group built in another order gives the same bytes.
  @Test
  void deterministicAndComplete() {
    FakeGroup g1 = new FakeGroup().topic(B, 2).topic(A, 3)
        .member("z", "inst-z", null, A, B).member("a", A);
    FakeGroup g2 = new FakeGroup().topic(A, 3).topic(B, 2)
        .member("a", A).member("z", "inst-z", null, B, A);
    AssignRequest r = Requests.build("kip848:x", "cooperative-sticky", g1, g1).request();
    assertEquals(r, Requests.build("kip848:x", "cooperative-sticky", g2, g2).request());
    assertTrue(r.getTargetAssignment());
    assertEquals("kip848:x", r.getGroupId());
    assertEquals("cooperative-sticky", r.getProtocolName());
    assertEquals(List.of("a", "z"), r.getMembersList().stream().map(Member::getMemberId).toList());
    assertEquals(List.of(A.toString(), B.toString()), r.getTopicsList().stream().map(t -> t.getName()).toList());
    assertEquals(List.of(A.toString(), B.toString()), r.getMembers(1).getTopicsList());
    assertEquals("inst-z", r.getMembers(1).getGroupInstanceId());
    assertFalse(r.getMembers(0).hasGroupInstanceId());
    assertFalse(r.getMembers(0).hasGeneration(), "the broker gives no epoch");
    assertEquals(0, r.getTopics(0).getPartitionRacksCount(), "no member has a rack: no racks sent");
  }

  // Current assignments become owned partitions, sorted; a topic the broker
  // no longer knows is left out of topics and owned partitions alike.
  @Test
  void ownedPartitionsAndUnknownTopics() {
    FakeGroup g = new FakeGroup().topic(A, 4).member("m", A, GONE);
    Map<Uuid, Set<Integer>> cur = new HashMap<>();
    cur.put(A, Set.of(3, 1));
    cur.put(GONE, Set.of(0));
    g.current.put("m", new FakeGroup.Owned(Collections.unmodifiableMap(cur)));
    AssignRequest r = Requests.build("g", "range", g, g).request();
    assertEquals(1, r.getTopicsCount());
    assertEquals(1, r.getMembers(0).getOwnedPartitionsCount());
    assertEquals(List.of(1, 3), r.getMembers(0).getOwnedPartitions(0).getPartitionsList());
    assertEquals(List.of(A.toString(), GONE.toString()), r.getMembers(0).getTopicsList().stream().sorted().toList());
  }

  // Racks go out, sorted, when some member has a rack.
  @Test
  void racksWhenAMemberHasOne() {
    FakeGroup g = new FakeGroup().topic(A, 2).member("m", null, "r1", A);
    g.racks.put(A, Set.of("r2", "r1"));
    AssignRequest r = Requests.build("g", "range", g, g).request();
    assertEquals("r1", r.getMembers(0).getRackId());
    assertEquals(2, r.getTopics(0).getPartitionRacksCount());
    assertEquals(List.of("r1", "r2"), r.getTopics(0).getPartitionRacks(1).getRacksList());
  }

  // An answer without the target flag is never applied.
  @Test
  void answerWithoutTheModeIsRefused() {
    FakeGroup g = new FakeGroup().topic(A, 2).member("m", A);
    Requests.Built b = Requests.build("g", "range", g, g);
    AssignResponse classic = AssigndAssignorTest.answerAll(b.request(), false);
    assertThrows(Requests.NotTarget.class, () -> Requests.toAssignment(b, classic));
    assertEquals(Set.of(0, 1), Requests.toAssignment(b, AssigndAssignorTest.answerAll(b.request(), true))
        .members().get("m").partitions().get(A));
  }
}
