package dev.assignd.kafka.broker;

import static dev.assignd.kafka.broker.FakeGroup.A;
import static dev.assignd.kafka.broker.FakeGroup.B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.common.FallbackReason;
import dev.assignd.testkit.AssigndExtension;
import dev.assignd.testkit.AssigndProcess;
import dev.assignd.testkit.FakeAssignd;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.TopicPartitions;
import io.grpc.Status;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The plugin against a real assignd, and against fakes that fail in every way the plugin tells apart. */
class AssigndAssignorTest {
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  /** A plugin configured for a test ({@link PluginTests#configured}). */
  static AssigndAssignor plugin(String target, String... kv) {
    return PluginTests.configured(new AssigndAssignor(), "assignd.assignor.1.name", target, kv);
  }

  static FakeGroup group() {
    return new FakeGroup().topic(A, 6).topic(B, 3)
        .member("m1", A, B).member("m2", "i-2", null, A, B).member("m3", A);
  }

  // The plan is assignd's answer to the same request, byte for byte, and
  // a valid target; the next epoch is sticky through the current
  // assignment the coordinator passes.
  @Test
  void servedByAssignd() {
    AssigndAssignor a = plugin(assignd.target());
    FakeGroup g = group();
    GroupAssignment got = a.assign(g, g);
    assertEquals("", g.violations(got));
    assertEquals(1, a.stats().getServed());
    assertEquals(0, a.stats().getFallbacks());

    Requests.Built b = Requests.build("kip848:" + a.name(), "cooperative-sticky", g, g);
    AssignResponse direct = PluginTests.askDirectly(assignd.target(), stub -> stub.assign(b.request()));
    assertTrue(direct.getTargetAssignment());
    assertEquals(Requests.toAssignment(b, direct), got);

    // m3 leaves, m4 joins: nobody but m3 loses anything it had.
    g.current(got).remove("m3").member("m4", A, B);
    GroupAssignment next = a.assign(g, g);
    assertEquals("", g.violations(next));
    for (String m : new String[] {"m1", "m2"}) {
      got.members().get(m).partitions().forEach((t, ps) ->
          assertTrue(next.members().get(m).partitions().getOrDefault(t, Set.of()).containsAll(ps) || moved(got, next, m) <= 2,
              m + " lost more than balance needs"));
    }
  }

  private static int moved(GroupAssignment before, GroupAssignment after, String m) {
    int n = 0;
    for (var e : before.members().get(m).partitions().entrySet()) {
      for (int p : e.getValue()) {
        if (!after.members().get(m).partitions().getOrDefault(e.getKey(), Set.of()).contains(p)) {
          n++;
        }
      }
    }
    return n;
  }

  // A KIP-848 target withholds nothing: a member that joins a group whose
  // partitions another member holds gets its share at once.
  @Test
  void targetWithholdsNothing() {
    AssigndAssignor a = plugin(assignd.target());
    FakeGroup g = new FakeGroup().topic(A, 6).member("m1", A);
    GroupAssignment first = a.assign(g, g);
    g.current(first).member("m2", A);
    GroupAssignment second = a.assign(g, g);
    assertEquals("", g.violations(second));
    assertEquals(3, second.members().get("m2").partitions().get(A).size());
  }

  // assignd down: the broker's uniform assigns (the same plan as uniform
  // itself), counted UNAVAILABLE; within the backoff assignd is not called
  // (BACKOFF); once assignd is back and the backoff over, it serves again.
  @Test
  void fallsBackWhileAssigndIsDownAndComesBack() throws Exception {
    try (AssigndProcess own = AssigndProcess.start()) {
      AssigndAssignor a = plugin(own.target(), PluginConfig.BACKOFF_MS, "300");
      FakeGroup g = group();
      assertEquals("", g.violations(a.assign(g, g)));
      PluginTests.fallsBackWhileDownAndComesBack(own, 300, () -> a.assign(g, g), () -> new UniformAssignor().assign(g, g), a.stats());
    }
  }

  // A hung assignd costs one deadline, not more: the call returns the
  // fallback's plan soon after the deadline, and the next call within the
  // backoff does not wait at all.
  @Test
  void deadlineBoundsTheCall() throws Exception {
    try (FakeAssignd hung = FakeAssignd.replying(req -> {
      try {
        Thread.sleep(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw Status.CANCELLED.asRuntimeException();
    })) {
      AssigndAssignor a = plugin(hung.target(), PluginConfig.DEADLINE_MS, "200", "assignd.fallback", "range");
      FakeGroup g = group();
      a.assign(g, g); // connects
      GroupAssignment[] got = {null};
      long ms = PluginTests.millis(() -> got[0] = a.assign(g, g));
      long skipped = PluginTests.millis(() -> a.assign(g, g));
      assertEquals(new RangeAssignor().assign(g, g), got[0], "the configured fallback is range");
      assertTrue(a.stats().fallbacks(FallbackReason.DEADLINE) >= 1);
      assertTrue(ms < 200 + 1000, "took " + ms + " ms with a 200 ms deadline");
      assertTrue(skipped < 100, "within the backoff: " + skipped + " ms");
      assertTrue(a.stats().fallbacks(FallbackReason.BACKOFF) >= 1);
    }
  }

  // An assignd that does not know target assignments (its answer lacks the
  // flag) is a misconfiguration: fallback, logged once however often.
  @Test
  void oldAssigndIsMisconfiguredAndLoggedOnce() throws Exception {
    try (FakeAssignd old = FakeAssignd.replying(req -> answerAll(req, false))) {
      AssigndAssignor a = plugin(old.target());
      FakeGroup g = group();
      long before = AssigndAssignor.MISCONFIGURATIONS_LOGGED.get();
      for (int i = 0; i < 5; i++) {
        assertEquals(new UniformAssignor().assign(g, g), a.assign(g, g));
      }
      assertEquals(5, a.stats().fallbacks(FallbackReason.MISCONFIGURED));
      assertEquals(1, AssigndAssignor.MISCONFIGURATIONS_LOGGED.get() - before);
    }
  }

  // Answers that are not a valid target of the group fall back.
  @Test
  void badResponsesFallBack() throws Exception {
    String[] kinds = {"missing member", "unknown member", "twice", "out of range", "unsubscribed"};
    for (String kind : kinds) {
      try (FakeAssignd bad = FakeAssignd.replying(req -> corrupt(answerAll(req, true), kind))) {
        AssigndAssignor a = plugin(bad.target());
        FakeGroup g = group();
        assertEquals(new UniformAssignor().assign(g, g), a.assign(g, g), kind);
        assertEquals(1, a.stats().fallbacks(FallbackReason.BAD_RESPONSE), kind);
      }
    }
  }

  // Status codes map to reasons; none throws.
  @Test
  void statusesMapToReasons() throws Exception {
    PluginTests.statusesMapToReasons(e -> FakeAssignd.replying(req -> {
      throw e;
    }), target -> {
      AssigndAssignor a = plugin(target);
      FakeGroup g = group();
      assertEquals("", g.violations(a.assign(g, g)));
      return a.stats();
    });
  }

  // No target: every assignment falls back, logged once; unparsable values
  // stop the broker's start naming the property.
  @Test
  void configuration() {
    AssigndAssignor none = plugin(null);
    FakeGroup g = group();
    none.assign(g, g);
    none.assign(g, g);
    assertEquals(2, none.stats().fallbacks(FallbackReason.MISCONFIGURED));
    assertEquals("assignd", new AssigndAssignor().name());
    assertEquals("assignd-3", new AssigndAssignor3().name());
    PluginTests.refused(bad -> plugin("127.0.0.1:1", bad), new String[][] {
        {PluginConfig.DEADLINE_MS, "0"}, {PluginConfig.DEADLINE_MS, "soon"}, {"assignd.assignor.1.deadline.ms", "-1"},
        {PluginConfig.FALLBACK, "sticky"}, {PluginConfig.TLS_CERT_FILE, "/c.pem"}, {PluginConfig.TLS_ENABLED, "yes"},
        {"assignd.assignor.1.name", "uniform"}});
    AssigndAssignor two = new AssigndAssignor2();
    two.configure(Map.of("assignd.assignor.2.name", "assignd-load", "assignd.assignor.2.protocol", "load",
        PluginConfig.TARGET, "127.0.0.1:1"));
    assertEquals("assignd-load", two.name());
  }

  // Members without subscription metadata for a topic (deleted: -1
  // partitions) are sent without it, and the group still assigns.
  @Test
  void deletedTopicIsLeftOut() {
    AssigndAssignor a = plugin(assignd.target());
    FakeGroup g = group();
    g.topics.remove(B);
    GroupAssignment got = a.assign(g, g);
    assertEquals(1, a.stats().getServed());
    got.members().values().forEach(m -> assertEquals(Set.of(A), m.partitions().isEmpty() ? Set.of(A) : m.partitions().keySet()));
  }

  /** Every member, partitions dealt round-robin over its topics. */
  static AssignResponse answerAll(assignd.v1.Assignment.AssignRequest req, boolean target) {
    AssignResponse.Builder r = AssignResponse.newBuilder().setTargetAssignment(target);
    int i = 0;
    for (var m : req.getMembersList()) {
      MemberAssignment.Builder ma = MemberAssignment.newBuilder().setMemberId(m.getMemberId());
      if (i++ == 0) {
        for (var t : req.getTopicsList()) {
          TopicPartitions.Builder tp = TopicPartitions.newBuilder().setTopic(t.getName());
          for (int p = 0; p < t.getPartitionCount(); p++) {
            tp.addPartitions(p);
          }
          if (m.getTopicsList().contains(t.getName())) {
            ma.addPartitions(tp);
          }
        }
      }
      r.addAssignments(ma);
    }
    return r.build();
  }

  static AssignResponse corrupt(AssignResponse r, String kind) {
    AssignResponse.Builder b = r.toBuilder();
    switch (kind) {
      case "missing member" -> b.removeAssignments(b.getAssignmentsCount() - 1);
      case "unknown member" -> b.addAssignments(MemberAssignment.newBuilder().setMemberId("ghost"));
      case "twice" -> b.addAssignments(b.getAssignments(0).toBuilder().setMemberId(b.getAssignments(1).getMemberId()));
      case "out of range" -> b.setAssignments(0, b.getAssignments(0).toBuilder().setPartitions(0,
          b.getAssignments(0).getPartitions(0).toBuilder().addPartitions(99)));
      case "unsubscribed" -> b.setAssignments(b.getAssignmentsCount() - 1, b.getAssignments(b.getAssignmentsCount() - 1).toBuilder()
          .addPartitions(TopicPartitions.newBuilder().setTopic(B.toString()).addPartitions(0)));
      default -> throw new IllegalArgumentException(kind);
    }
    return b.build();
  }
}
