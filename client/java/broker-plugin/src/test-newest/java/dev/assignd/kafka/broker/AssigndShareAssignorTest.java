package dev.assignd.kafka.broker;

import static dev.assignd.kafka.broker.FakeGroup.A;
import static dev.assignd.kafka.broker.FakeGroup.B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.ShareAssignment.AssignShareResponse;
import assignd.v1.ShareAssignment.ShareMember;
import assignd.v1.ShareAssignment.ShareMemberAssignment;
import assignd.v1.ShareAssignment.SharePartitions;
import dev.assignd.common.FallbackReason;
import dev.assignd.testkit.AssigndExtension;
import dev.assignd.testkit.AssigndProcess;
import dev.assignd.testkit.FakeAssignd;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The share-group plugin against a real assignd, and against fakes that fail in the ways it tells apart. */
class AssigndShareAssignorTest {
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  /** A share assignor configured for a test ({@link PluginTests#configured}). */
  static AssigndShareAssignor plugin(String target, String... kv) {
    return PluginTests.configured(new AssigndShareAssignor(), ShareConfig.NAME, target, kv);
  }

  /** Five members over a topic of three partitions (so partitions are shared) and one of six that two subscribe to. */
  static FakeGroup group() {
    return new FakeGroup().topic(A, 3).topic(B, 6)
        .member("m1", A, B).member("m2", A).member("m3", A, B).member("m4", A).member("m5", A);
  }

  // The plan is valid and balanced (each of A's five subscribers one
  // partition, B's six split three and three), and it is assignd's answer
  // to the same request; the next epoch, fed its own answer, keeps it.
  @Test
  void servedByAssignd() {
    AssigndShareAssignor a = plugin(assignd.target());
    FakeGroup g = group();
    GroupAssignment got = a.assign(g, g);
    assertEquals("", ShareInvariants.violations(g, got));
    assertEquals(0, ShareInvariants.memberSpread(g, got));
    assertEquals(0, ShareInvariants.idle(g, got));
    assertEquals(1, a.stats().getServed());
    assertEquals("SHARE", a.stats().getGroupType());

    ShareRequests.Built b = ShareRequests.build(ShareConfig.from(Map.of()), g, g);
    AssignShareResponse direct = PluginTests.askDirectly(assignd.target(), stub -> stub.assignShare(b.request()));
    assertEquals(ShareRequests.toAssignment(b, direct), got);
    g.current(got);
    GroupAssignment again = a.assign(g, g);
    assertEquals(got, again, "a steady group keeps its plan");
    assertEquals(0, ShareInvariants.removed(g, again));
  }

  // Partitions whose share state is not initialised are sent as such and
  // given to nobody; they count for no slot.
  @Test
  void unassignablePartitionsGoToNobody() {
    AssigndShareAssignor a = plugin(assignd.target());
    FakeGroup g = new FakeGroup().topic(A, 4).member("m1", A).member("m2", A);
    g.unassignable.add(A + "-3");
    ShareRequests.Built b = ShareRequests.build(ShareConfig.from(Map.of()), g, g);
    assertEquals(3, b.request().getTopics(0).getUnassignablePartitions(0));
    GroupAssignment got = a.assign(g, g);
    assertEquals("", ShareInvariants.violations(g, got));
    assertEquals(3, got.members().values().stream().mapToInt(m -> m.partitions().getOrDefault(A, Set.of()).size()).sum());
  }

  // assignd down: SimpleAssignor assigns (its own plan), counted
  // UNAVAILABLE; within the backoff assignd is not called (BACKOFF); once
  // it is back and the backoff over, it serves again.
  @Test
  void fallsBackToSimpleWhileAssigndIsDown() throws Exception {
    try (AssigndProcess own = AssigndProcess.start()) {
      // A backoff long enough that the next call falls in it on a busy
      // machine, where the fallback and the check take a few hundred ms.
      AssigndShareAssignor a = plugin(own.target(), ShareConfig.BACKOFF_MS, "1500");
      FakeGroup g = group();
      assertEquals("", ShareInvariants.violations(g, a.assign(g, g)));
      PluginTests.fallsBackWhileDownAndComesBack(own, 1500, () -> a.assign(g, g), () -> new SimpleAssignor().assign(g, g),
          a.stats());
    }
  }

  // A hung assignd costs one deadline: the call returns SimpleAssignor's
  // plan soon after it, and the next call within the backoff does not wait.
  @Test
  void deadlineBoundsTheCall() throws Exception {
    // It answers the plugin's warm-up (one member), so that configure does
    // not wait for it, and nothing else.
    try (FakeAssignd hung = FakeAssignd.answeringShare((req, out) -> {
      if (req.getMembersCount() == 1) {
        out.onNext(everyoneEverything(req.getMembersList()));
        out.onCompleted();
      }
    })) {
      AssigndShareAssignor a = plugin(hung.target(), ShareConfig.DEADLINE_MS, "200");
      FakeGroup g = group();
      GroupAssignment[] got = {null};
      long ms = PluginTests.millis(() -> got[0] = a.assign(g, g));
      long skipped = PluginTests.millis(() -> a.assign(g, g));
      assertEquals(new SimpleAssignor().assign(g, g), got[0]);
      assertEquals(1, a.stats().fallbacks(FallbackReason.DEADLINE));
      assertTrue(ms < 200 + 1000, "took " + ms + " ms with a 200 ms deadline");
      assertTrue(skipped < 100, "within the backoff: " + skipped + " ms");
      assertEquals(1, a.stats().fallbacks(FallbackReason.BACKOFF));
    }
  }

  // An answer that is not a valid plan of the group is not applied: the
  // fallback's is, counted BAD_RESPONSE.
  @Test
  void badAnswersFallBack() throws Exception {
    Map<String, UnaryOperator<AssignShareResponse>> corrupt = Map.of(
        "a partition with no member", r -> r.toBuilder()
            .setAssignments(0, r.getAssignments(0).toBuilder().setPartitions(0, r.getAssignments(0).getPartitions(0).toBuilder()
                .clearPartitions().addPartitions(0)))
            .setAssignments(1, r.getAssignments(1).toBuilder().setPartitions(0, r.getAssignments(1).getPartitions(0).toBuilder()
                .clearPartitions().addPartitions(0))).build(),
        "a member missing", r -> r.toBuilder().removeAssignments(1).build(),
        "a stranger", r -> r.toBuilder().addAssignments(ShareMemberAssignment.newBuilder().setMemberId("x")).build(),
        "an unsubscribed topic", r -> r.toBuilder().setAssignments(1, r.getAssignments(1).toBuilder()
            .addPartitions(SharePartitions.newBuilder().setTopic(B.toString()).addPartitions(0))).build(),
        "a partition that does not exist", r -> r.toBuilder().setAssignments(0, r.getAssignments(0).toBuilder()
            .addPartitions(SharePartitions.newBuilder().setTopic(A.toString()).addPartitions(9))).build());
    for (Map.Entry<String, UnaryOperator<AssignShareResponse>> e : corrupt.entrySet()) {
      try (FakeAssignd bad = FakeAssignd.answeringShare((req, out) -> {
        // The plugin's warm-up (one member) gets a valid answer.
        AssignShareResponse valid = everyoneEverything(req.getMembersList());
        out.onNext(req.getMembersCount() == 1 ? valid : e.getValue().apply(valid));
        out.onCompleted();
      })) {
        AssigndShareAssignor a = plugin(bad.target());
        FakeGroup g = new FakeGroup().topic(A, 2).topic(B, 1).member("m1", A).member("m2", A);
        assertEquals(new SimpleAssignor().assign(g, g), a.assign(g, g), e.getKey());
        assertEquals(1, a.stats().fallbacks(FallbackReason.BAD_RESPONSE), e.getKey());
      }
    }
  }

  /** A valid share plan: every member gets every partition it subscribes to of A's two. */
  private static AssignShareResponse everyoneEverything(Iterable<ShareMember> members) {
    AssignShareResponse.Builder r = AssignShareResponse.newBuilder();
    for (ShareMember m : members) {
      r.addAssignments(ShareMemberAssignment.newBuilder().setMemberId(m.getMemberId())
          .addPartitions(SharePartitions.newBuilder().setTopic(A.toString()).addPartitions(0).addPartitions(1)));
    }
    return r.build();
  }

  // No target: every call falls back, misconfigured, logged once.
  @Test
  void noTargetIsMisconfigured() {
    long before = AssigndShareAssignor.MISCONFIGURATIONS_LOGGED.get();
    AssigndShareAssignor a = plugin(null);
    FakeGroup g = group();
    a.assign(g, g);
    a.assign(g, g);
    assertEquals(2, a.stats().fallbacks(FallbackReason.MISCONFIGURED));
    assertEquals(before + 1, AssigndShareAssignor.MISCONFIGURATIONS_LOGGED.get());
  }

  @Test
  void badSettingsStopTheBroker() {
    assertThrows(ConfigException.class, () -> plugin(assignd.target(), ShareConfig.NAME, "simple"));
    assertThrows(ConfigException.class, () -> plugin(assignd.target(), ShareConfig.DEADLINE_MS, "soon"));
    assertThrows(ConfigException.class, () -> plugin(assignd.target(), ShareConfig.BACKOFF_MS, "-1"));
  }

  @Test
  void sharedDeadlineUnlessItsOwn() {
    assertEquals(700, ShareConfig.from(Map.of(PluginConfig.DEADLINE_MS, "700")).deadlineMs);
    ShareConfig own = ShareConfig.from(Map.of(PluginConfig.DEADLINE_MS, "700", ShareConfig.DEADLINE_MS, "300"));
    assertEquals(300, own.deadlineMs);
    assertEquals(ShareConfig.DEADLINE_MS, own.deadlineKey);
    assertEquals("kip932:assignd", ShareConfig.from(Map.of()).groupId);
  }
}
