package dev.assignd.kafka.broker;

import static dev.assignd.kafka.broker.PluginTests.millis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.AssignTasksResponse;
import assignd.v1.TaskAssignment.GroupType;
import assignd.v1.TaskAssignment.StreamsMember;
import assignd.v1.TaskAssignment.StreamsMemberAssignment;
import assignd.v1.TaskAssignment.StreamsTask;
import assignd.v1.TaskAssignment.TaskLag;
import dev.assignd.common.FallbackReason;
import dev.assignd.testkit.AssigndExtension;
import dev.assignd.testkit.AssigndProcess;
import dev.assignd.testkit.FakeAssignd;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The task assignor against a real assignd, and against fakes that fail in
 * every way it tells apart: the conversion both ways, every fallback
 * reason, the deadline, concurrent calls.
 */
class AssigndTaskAssignorTest {
  /** What a call may take beyond its deadline: the fallback and a busy 2-core machine (DeadlineTest's). */
  private static final long SLACK_MS = 50;
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  /** A task assignor configured for a test ({@link PluginTests#configured}). */
  static AssigndTaskAssignor plugin(String target, String... kv) {
    return PluginTests.configured(new AssigndTaskAssignor(), TaskAssignorConfig.NAME, target, kv);
  }

  /** Three processes, one of them with two threads; a stateless and a stateful subtopology; one standby. */
  static FakeStreamsGroup group() {
    return new FakeStreamsGroup().subtopology("0", 4, false).subtopology("1", 6, true).standbys(1)
        .member("m1", "p1").member("m2", "p2").member("m3", "p3").member("m4", "p3");
  }

  private static GroupAssignment sticky(FakeStreamsGroup g) {
    return new StickyTaskAssignor().assign(g, g);
  }

  // The plan is assignd's answer to the same request, and a valid plan;
  // the next epoch is sticky through the current tasks the coordinator
  // passes.
  @Test
  void servedByAssignd() {
    AssigndTaskAssignor a = plugin(assignd.target());
    FakeStreamsGroup g = group();
    GroupAssignment got = a.assign(g, g);
    assertEquals("", g.violations(got));
    assertEquals(1, a.stats().getServed());
    assertEquals(0, a.stats().getFallbacks());
    assertEquals("STREAMS", a.stats().getGroupType());
    assertEquals("kip1071:" + a.name(), a.stats().getGroupId());

    TaskRequests.Built b = TaskRequests.build(TaskAssignorConfig.from(Map.of(TaskAssignorConfig.NAME, a.name())), g, g);
    AssignTasksResponse direct = PluginTests.askDirectly(assignd.target(), stub -> stub.assignTasks(b.request()));
    assertEquals(TaskRequests.toAssignment(b, direct), got);

    // m2 leaves, m5 joins on a new process: the members that stay keep
    // their actives but for what the balance takes.
    g.current(got).remove("m2").member("m5", "p5");
    GroupAssignment next = a.assign(g, g);
    assertEquals("", g.violations(next));
    int kept = 0;
    int had = 0;
    for (String m : List.of("m1", "m3", "m4")) {
      for (var e : got.members().get(m).activeTasks().entrySet()) {
        for (int p : e.getValue()) {
          had++;
          if (next.members().get(m).activeTasks().getOrDefault(e.getKey(), Set.of()).contains(p)) {
            kept++;
          }
        }
      }
    }
    // 10 tasks over 4 members: 2 or 3 each; the three stayers had 7 or 8
    // and keep at least 2 each.
    assertTrue(kept >= 6 && kept <= had, "kept " + kept + " of " + had + " actives: " + got + " -> " + next);
  }

  // What the broker hands the assignor reaches assignd, named as the
  // broker names it, sorted; warm-ups are not asked for (the broker's
  // refiner places them) and those in an answer are dropped, while its
  // actives and standbys come back unchanged.
  @Test
  void conversionRoundTrip() throws Exception {
    AtomicReference<AssignTasksRequest> seen = new AtomicReference<>();
    AssignTasksResponse answer = AssignTasksResponse.newBuilder()
        .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m1")
            .addActiveTasks(task("0", 0)).addActiveTasks(task("0", 1)).addActiveTasks(task("1", 0))
            .addStandbyTasks(task("1", 1)))
        .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m2")
            .addActiveTasks(task("1", 1)).addStandbyTasks(task("1", 0)).addWarmupTasks(task("1", 2)))
        .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m3")
            .addActiveTasks(task("1", 2)))
        .setAssignor("sticky@1").setGroupType(GroupType.GROUP_TYPE_STREAMS)
        .build();
    try (FakeAssignd f = FakeAssignd.replyingTasks(req -> {
      seen.set(req);
      return answer;
    })) {
      AssigndTaskAssignor a = plugin(f.target(), TaskAssignorConfig.ASSIGNOR, "sticky@1",
          TaskAssignorConfig.GROUP_ID, "payments-streams", "group.streams.acceptable.recovery.lag", "250");
      FakeStreamsGroup g = new FakeStreamsGroup().subtopology("1", 3, true).subtopology("0", 2, false).standbys(1)
          .member("m3", "p3").member("m1", "p1").member("m2", "p2");
      g.rackTags = List.of("zone");
      FakeStreamsGroup.Member m1 = g.members.get("m1");
      m1.instance = "i-1";
      m1.rack = "r1";
      m1.tags.put("zone", "z1");
      m1.active = Map.of("1", Set.of(2, 0), "0", Set.of(1));
      m1.standby = Map.of("1", Set.of(1));
      m1.warmup = Map.of("1", Set.of(2));
      // Offsets of state kept without running it; only where the end
      // offset is a real one at or past the offset is a lag known.
      m1.offsets.put("1", Map.of(1, 40L, 2, 7L));
      m1.endOffsets.put("1", Map.of(1, 100L, 2, Long.MAX_VALUE));
      FakeStreamsGroup.Member m2 = g.members.get("m2");
      m2.offsets.put("1", Map.of(0, 50L, 1, 9L));
      m2.endOffsets.put("1", Map.of(0, 20L));

      GroupAssignment got = a.assign(g, g);
      assertEquals(1, a.stats().getServed(), a.stats().toString());
      AssignTasksRequest req = seen.get();
      assertEquals("payments-streams", req.getGroupId());
      assertEquals(GroupType.GROUP_TYPE_STREAMS, req.getGroupType());
      assertEquals("sticky@1", req.getAssignor());
      assertEquals(1, req.getNumStandbyReplicas());
      assertEquals(List.of("zone"), req.getRackAwareAssignmentTagsList());
      assertEquals(0, req.getNumWarmupReplicas());
      assertEquals(250, req.getAcceptableRecoveryLag());
      assertEquals(List.of("0:2:false", "1:3:true"), req.getSubtopologiesList().stream()
          .map(s -> s.getId() + ":" + s.getPartitionCount() + ":" + s.getStateful()).toList());
      assertEquals(List.of("m1", "m2", "m3"), req.getMembersList().stream().map(StreamsMember::getMemberId).toList());
      StreamsMember r1 = req.getMembers(0);
      assertEquals("p1", r1.getProcessId());
      assertEquals("i-1", r1.getInstanceId());
      assertEquals("r1", r1.getRackId());
      assertEquals(Map.of("zone", "z1"), r1.getClientTagsMap());
      assertEquals(List.of(task("0", 1), task("1", 0), task("1", 2)), r1.getActiveTasksList());
      assertEquals(List.of(task("1", 1)), r1.getStandbyTasksList());
      assertEquals(List.of(task("1", 2)), r1.getWarmupTasksList());
      assertEquals(List.of(TaskLag.newBuilder().setTask(task("1", 1)).setLag(60).build()), r1.getLagsList());
      StreamsMember r2 = req.getMembers(1);
      assertEquals(false, r2.hasInstanceId());
      assertEquals(false, r2.hasRackId());
      assertEquals(List.of(), r2.getLagsList(), "an end offset below the offset, or none, tells no lag");

      GroupAssignment want = new GroupAssignment(Map.of(
          "m1", new MemberAssignment(Map.of("0", Set.of(0, 1), "1", Set.of(0)), Map.of("1", Set.of(1))),
          "m2", new MemberAssignment(Map.of("1", Set.of(1)), Map.of("1", Set.of(0))),
          "m3", new MemberAssignment(Map.of("1", Set.of(2)), Map.of())));
      assertEquals(want, got);
    }
  }

  private static StreamsTask task(String subtopology, int partition) {
    return StreamsTask.newBuilder().setSubtopologyId(subtopology).setPartition(partition).build();
  }

  // An empty group is served without a call.
  @Test
  void emptyGroup() throws Exception {
    try (FakeAssignd f = FakeAssignd.replyingTasks(req -> {
      throw Status.INTERNAL.asRuntimeException();
    })) {
      AssigndTaskAssignor a = plugin(f.target());
      FakeStreamsGroup g = new FakeStreamsGroup().subtopology("0", 2, true);
      assertEquals(new GroupAssignment(Map.of()), a.assign(g, g));
      assertEquals(1, a.stats().getServed());
    }
  }

  // assignd down: StickyTaskAssignor assigns (its own plan), counted
  // UNAVAILABLE; within the backoff assignd is not called (BACKOFF); once
  // assignd is back and the backoff over, it serves again.
  @Test
  void fallsBackWhileAssigndIsDownAndComesBack() throws Exception {
    try (AssigndProcess own = AssigndProcess.start()) {
      AssigndTaskAssignor a = plugin(own.target(), TaskAssignorConfig.BACKOFF_MS, "300");
      FakeStreamsGroup g = group();
      assertEquals("", g.violations(a.assign(g, g)));
      PluginTests.fallsBackWhileDownAndComesBack(own, 300, () -> a.assign(g, g), () -> sticky(g), a.stats());
    }
  }

  // Answers that are not a valid plan of the group fall back.
  @Test
  void badResponsesFallBack() throws Exception {
    String[] kinds = {"missing member", "unknown member", "member twice", "active twice", "task unassigned",
        "unknown subtopology", "out of range", "standby of stateless", "standby beside its active", "standby on the same process"};
    for (String kind : kinds) {
      try (FakeAssignd bad = FakeAssignd.replyingTasks(req -> corrupt(valid(), kind))) {
        AssigndTaskAssignor a = plugin(bad.target());
        FakeStreamsGroup g = small();
        assertEquals(sticky(g), a.assign(g, g), kind);
        assertEquals(1, a.stats().fallbacks(FallbackReason.BAD_RESPONSE), kind);
      }
    }
    // The uncorrupted answer is taken.
    try (FakeAssignd good = FakeAssignd.replyingTasks(req -> valid())) {
      AssigndTaskAssignor a = plugin(good.target());
      FakeStreamsGroup g = small();
      assertEquals("", g.violations(a.assign(g, g)));
      assertEquals(1, a.stats().getServed());
    }
  }

  /** Two processes, m3 a second thread of p2; a stateless and a stateful subtopology of two tasks; one standby. */
  private static FakeStreamsGroup small() {
    return new FakeStreamsGroup().subtopology("0", 2, false).subtopology("1", 2, true).standbys(1)
        .member("m1", "p1").member("m2", "p2").member("m3", "p2");
  }

  /** A valid plan of {@link #small()}. */
  private static AssignTasksResponse valid() {
    return AssignTasksResponse.newBuilder()
        .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m1")
            .addActiveTasks(task("0", 0)).addActiveTasks(task("1", 0)).addStandbyTasks(task("1", 1)))
        .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m2")
            .addActiveTasks(task("1", 1)).addStandbyTasks(task("1", 0)))
        .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m3").addActiveTasks(task("0", 1)))
        .build();
  }

  private static AssignTasksResponse corrupt(AssignTasksResponse r, String kind) {
    AssignTasksResponse.Builder b = r.toBuilder();
    switch (kind) {
      case "missing member" -> b.removeAssignments(2).setAssignments(0, b.getAssignments(0).toBuilder().addActiveTasks(task("0", 1)));
      case "unknown member" -> b.addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("ghost"));
      case "member twice" -> b.addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m3"));
      case "active twice" -> b.setAssignments(2, b.getAssignments(2).toBuilder().addActiveTasks(task("0", 0)));
      case "task unassigned" -> b.setAssignments(2, b.getAssignments(2).toBuilder().clearActiveTasks());
      case "unknown subtopology" -> b.setAssignments(2, b.getAssignments(2).toBuilder().addActiveTasks(task("9", 0)));
      case "out of range" -> b.setAssignments(2, b.getAssignments(2).toBuilder().addActiveTasks(task("0", 2)));
      case "standby of stateless" -> b.setAssignments(0, b.getAssignments(0).toBuilder().addStandbyTasks(task("0", 1)));
      case "standby beside its active" -> b.setAssignments(0, b.getAssignments(0).toBuilder().addStandbyTasks(task("1", 0)));
      case "standby on the same process" -> b.setAssignments(2, b.getAssignments(2).toBuilder().addStandbyTasks(task("1", 1)));
      default -> throw new IllegalArgumentException(kind);
    }
    return b.build();
  }

  // Status codes map to reasons as for the consumer plugin; none throws.
  // An assignd without AssignTasks (older than the task API) is
  // UNIMPLEMENTED: misconfigured, logged once.
  @Test
  void statusesMapToReasons() throws Exception {
    PluginTests.statusesMapToReasons(e -> FakeAssignd.replyingTasks(req -> {
      throw e;
    }), target -> {
      AssigndTaskAssignor a = plugin(target);
      FakeStreamsGroup g = group();
      assertEquals(sticky(g), a.assign(g, g));
      return a.stats();
    });
    try (FakeAssignd old = FakeAssignd.replying(req -> {
      throw Status.INTERNAL.asRuntimeException();
    })) {
      AssigndTaskAssignor a = plugin(old.target(), TaskAssignorConfig.BACKOFF_MS, "0");
      FakeStreamsGroup g = group();
      long before = AssigndTaskAssignor.MISCONFIGURATIONS_LOGGED.get();
      for (int i = 0; i < 3; i++) {
        assertEquals(sticky(g), a.assign(g, g));
      }
      assertEquals(3, a.stats().fallbacks(FallbackReason.MISCONFIGURED));
      assertEquals(1, AssigndTaskAssignor.MISCONFIGURATIONS_LOGGED.get() - before);
    }
  }

  // A topology that throws fails the request's building (OTHER) and the
  // fallback too: the coordinator gets a TaskAssignorException, counted
  // as a failure, not as a fallback.
  @Test
  void fallbackFailureThrows() {
    AssigndTaskAssignor a = plugin(assignd.target());
    FakeStreamsGroup g = new FakeStreamsGroup() {
      @Override
      public int maxNumInputPartitions(String subtopologyId) {
        throw new java.util.NoSuchElementException("gone: " + subtopologyId);
      }
    }.subtopology("0", 2, true).member("m1", "p1");
    assertThrows(TaskAssignorException.class, () -> a.assign(g, g));
    assertEquals(1, a.stats().getFailures());
    assertEquals(0, a.stats().getFallbacks());
  }

  // The first call after configure() is served within the default
  // deadline: the task paths and the channel were warmed at configure.
  @Test
  void firstCallIsServedWithinTheDeadline() throws Exception {
    try (AssigndProcess fresh = AssigndProcess.start()) {
      AssigndTaskAssignor a = plugin(fresh.target(), TaskAssignorConfig.DEADLINE_MS, Long.toString(PluginConfig.DEFAULT_DEADLINE_MS));
      FakeStreamsGroup g = group();
      PluginTests.firstCallServedWithin(PluginConfig.DEFAULT_DEADLINE_MS, () -> a.assign(g, g), a.stats());
    }
  }

  // A hung assignd costs the deadline once per backoff: the call returns
  // the fallback's plan by the deadline, and calls within the backoff at
  // once. assignd.streams.deadline.ms overrides assignd.deadline.ms.
  @Test
  void hungAssigndCostsOneDeadlinePerBackoff() throws Exception {
    try (FakeAssignd hung = FakeAssignd.answeringTasks((req, out) -> { })) {
      AssigndTaskAssignor a = plugin(hung.target(), TaskAssignorConfig.DEADLINE_MS, "200", TaskAssignorConfig.BACKOFF_MS, "400");
      FakeStreamsGroup g = group();
      for (int round = 0; round < 2; round++) {
        GroupAssignment[] got = {null};
        long first = millis(() -> got[0] = a.assign(g, g));
        assertEquals(sticky(g), got[0]);
        assertTrue(first >= 150 && first <= 200 + SLACK_MS, "round " + round + ": the hung call took " + first + " ms");
        for (int i = 0; i < 10; i++) {
          long skipped = millis(() -> a.assign(g, g));
          assertTrue(skipped < 50, "round " + round + ": a call within the backoff took " + skipped + " ms");
        }
        Thread.sleep(450);
      }
      assertEquals(2, a.stats().fallbacks(FallbackReason.DEADLINE), a.stats().toString());
      assertEquals(20, a.stats().fallbacks(FallbackReason.BACKOFF), a.stats().toString());
    }
  }

  // Building the request counts against the deadline: a group whose
  // metadata is slow to read falls back at the deadline, not after.
  @Test
  void buildingTheRequestIsWithinTheDeadline() throws Exception {
    AssigndTaskAssignor a = plugin(assignd.target(), TaskAssignorConfig.DEADLINE_MS, "200");
    FakeStreamsGroup g = new FakeStreamsGroup() {
      @Override
      public org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata memberMetadata(String memberId) {
        PluginTests.slowOnCallThread(150);
        return super.memberMetadata(memberId);
      }
    }.subtopology("0", 4, true).member("m1", "p1").member("m2", "p2");
    GroupAssignment[] got = {null};
    long ms = millis(() -> got[0] = a.assign(g, g));
    assertEquals(sticky(g), got[0]);
    assertEquals(1, a.stats().fallbacks(FallbackReason.DEADLINE), a.stats().toString());
    assertTrue(ms <= 200 + SLACK_MS, "took " + ms + " ms with a 200 ms deadline");
  }

  // Several coordinator threads call one instance at once (one per
  // group.coordinator.threads): every call is served with a valid plan of
  // its own group, and against a hung assignd every one returns by its
  // deadline.
  @Test
  void concurrentCalls() throws Exception {
    AssigndTaskAssignor a = plugin(assignd.target());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<String>> fs = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        int members = 1 + i % 5;
        fs.add(pool.submit(() -> {
          FakeStreamsGroup g = new FakeStreamsGroup().subtopology("0", 3, false).subtopology("1", 5, true).standbys(1);
          for (int m = 0; m < members; m++) {
            g.member("m" + m, "p" + m);
          }
          return g.violations(a.assign(g, g));
        }));
      }
      for (Future<String> f : fs) {
        assertEquals("", f.get(60, TimeUnit.SECONDS));
      }
      assertEquals(40, a.stats().getServed(), a.stats().toString());
    } finally {
      pool.shutdownNow();
    }
    try (FakeAssignd hung = FakeAssignd.answeringTasks((req, out) -> { })) {
      AssigndTaskAssignor h = plugin(hung.target(), TaskAssignorConfig.DEADLINE_MS, "300", TaskAssignorConfig.BACKOFF_MS, "0");
      ExecutorService four = Executors.newFixedThreadPool(4);
      try {
        List<Future<Long>> fs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          fs.add(four.submit(() -> {
            FakeStreamsGroup g = group();
            return millis(() -> h.assign(g, g));
          }));
        }
        for (Future<Long> f : fs) {
          long ms = f.get(30, TimeUnit.SECONDS);
          // Four calls' fallbacks share two cores at once: each call's slack.
          assertTrue(ms <= 300 + 4 * SLACK_MS, "a concurrent call took " + ms + " ms with a 300 ms deadline");
        }
        assertEquals(8, h.stats().fallbacks(FallbackReason.DEADLINE), h.stats().toString());
      } finally {
        four.shutdownNow();
      }
    }
  }

  // No target: every assignment falls back, logged once; unparsable values
  // stop the broker's start naming the property.
  @Test
  void configuration() {
    AssigndTaskAssignor none = plugin(null);
    FakeStreamsGroup g = group();
    none.assign(g, g);
    none.assign(g, g);
    assertEquals(2, none.stats().fallbacks(FallbackReason.MISCONFIGURED));
    assertEquals("assignd", new AssigndTaskAssignor().name());
    PluginTests.refused(bad -> plugin("127.0.0.1:1", bad), new String[][] {
        {TaskAssignorConfig.DEADLINE_MS, "0"}, {PluginConfig.DEADLINE_MS, "soon"}, {TaskAssignorConfig.BACKOFF_MS, "-1"},
        {PluginConfig.TLS_ENABLED, "yes"}, {TaskAssignorConfig.NAME, "sticky"},
        {"group.streams.acceptable.recovery.lag", "-5"}});
    TaskAssignorConfig c = TaskAssignorConfig.from(Map.of(PluginConfig.DEADLINE_MS, "700", PluginConfig.BACKOFF_MS, "900",
        TaskAssignorConfig.NAME, "assignd-tasks"));
    assertEquals(700, c.deadlineMs);
    assertEquals(PluginConfig.DEADLINE_MS, c.deadlineKey);
    assertEquals(900, c.backoffMs);
    assertEquals("kip1071:assignd-tasks", c.groupId);
    assertEquals(10_000, c.acceptableRecoveryLag, "the broker's default");
    assertEquals(300, TaskAssignorConfig.from(Map.of(PluginConfig.DEADLINE_MS, "700", TaskAssignorConfig.DEADLINE_MS, "300")).deadlineMs);
  }
}
