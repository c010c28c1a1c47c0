package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.TaskLag;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.junit.jupiter.api.Test;

/** The task translation alone, without a server. */
class TaskRequestsTest {
  private static final TaskAssignorConfig CONFIG = TaskAssignorConfig.from(Map.of());

  // The same group, its members, subtopologies and tasks met in another
  // order, gives the same bytes.
  @Test
  void deterministic() {
    FakeStreamsGroup g1 = new FakeStreamsGroup().subtopology("1", 3, true).subtopology("0", 2, false).standbys(1)
        .member("z", "p2").member("a", "p1");
    g1.members.get("z").active = Map.of("1", new HashSet<>(List.of(2, 0)), "0", Set.of(1));
    FakeStreamsGroup g2 = new FakeStreamsGroup().subtopology("0", 2, false).subtopology("1", 3, true).standbys(1)
        .member("a", "p1").member("z", "p2");
    Map<String, Set<Integer>> active = new HashMap<>();
    active.put("0", Set.of(1));
    active.put("1", new HashSet<>(List.of(0, 2)));
    g2.members.get("z").active = active;
    AssignTasksRequest r1 = TaskRequests.build(CONFIG, g1, g1).request();
    assertArrayEquals(r1.toByteArray(), TaskRequests.build(CONFIG, g2, g2).request().toByteArray());
    assertEquals("kip1071:assignd", r1.getGroupId());
    assertEquals("", r1.getAssignor(), "assignd's policy chooses");
  }

  // A lag is sent only where the broker's offsets tell one: an end offset
  // that is real and not below the member's offset.
  @Test
  void lags() {
    Object[][] cases = {
        // offset, end offset (null: none), lag (null: unknown)
        {40L, 100L, 60L},
        {0L, 0L, 0L},
        {7L, Long.MAX_VALUE, null},
        {50L, 20L, null},
        {9L, null, null},
        {-1L, 5L, null},
    };
    for (Object[] c : cases) {
      FakeStreamsGroup.Member m = new FakeStreamsGroup.Member("p");
      m.offsets.put("1", Map.of(3, (Long) c[0]));
      if (c[1] != null) {
        m.endOffsets.put("1", Map.of(3, (Long) c[1]));
      }
      List<TaskLag> got = TaskRequests.lags(m);
      assertEquals(c[2] == null ? List.of() : List.of((Long) c[2]), got.stream().map(TaskLag::getLag).toList(),
          "offset " + c[0] + ", end " + c[1]);
    }
  }

  // What the coordinator got back, written as assignd's answer form for
  // the record file: sorted, actives and standbys.
  @Test
  void encode() {
    GroupAssignment a = new GroupAssignment(Map.of(
        "m2", new MemberAssignment(Map.of("1", Set.of(1)), Map.of("1", Set.of(0))),
        "m1", new MemberAssignment(Map.of("1", Set.of(0), "0", Set.of(1, 0)), Map.of())));
    var r = TaskRequests.encode(a);
    assertEquals(List.of("m1", "m2"), r.getAssignmentsList().stream().map(x -> x.getMemberId()).toList());
    assertEquals(Set.of("0_0", "0_1", "1_0"), TaskRecords.names(r.getAssignments(0).getActiveTasksList()));
    assertEquals(List.of("0_0", "0_1", "1_0"), r.getAssignments(0).getActiveTasksList().stream()
        .map(t -> t.getSubtopologyId() + "_" + t.getPartition()).toList());
    assertEquals(Set.of("1_0"), TaskRecords.names(r.getAssignments(1).getStandbyTasksList()));
  }
}
