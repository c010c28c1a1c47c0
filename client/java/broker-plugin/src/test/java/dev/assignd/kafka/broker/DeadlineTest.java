package dev.assignd.kafka.broker;

import static dev.assignd.kafka.broker.AssigndAssignorTest.group;
import static dev.assignd.kafka.broker.AssigndAssignorTest.plugin;
import static dev.assignd.kafka.broker.PluginTests.millis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.assignd.common.FallbackReason;
import dev.assignd.testkit.AssigndExtension;
import dev.assignd.testkit.AssigndProcess;
import dev.assignd.testkit.FakeAssignd;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The coordinator's thread never waits past assignd.deadline.ms, whatever
 * the time is spent on, and a failing assignd costs at most one deadline
 * per backoff: every call after the first within a backoff period returns
 * at once.
 */
class DeadlineTest {
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  /** What a call may take beyond its deadline: the fallback and a busy 2-core machine. */
  private static final long SLACK_MS = 50;
  /** A call skipped within the backoff. */
  private static final long SKIP_MS = 5;

  // The first call after configure() is served within the deadline: the
  // channel and the code paths were warmed at configure.
  @Test
  void firstCallIsServedWithinTheDeadline() throws Exception {
    try (AssigndProcess fresh = AssigndProcess.start()) {
      AssigndAssignor a = plugin(fresh.target(), PluginConfig.DEADLINE_MS, "500");
      FakeGroup g = group();
      PluginTests.firstCallServedWithin(500, () -> a.assign(g, g), a.stats());
    }
  }

  // Building the request counts against the deadline: a group whose
  // metadata is slow to read falls back at the deadline, not after.
  @Test
  void buildingTheRequestIsWithinTheDeadline() throws Exception {
    AssigndAssignor a = plugin(assignd.target(), PluginConfig.DEADLINE_MS, "200");
    FakeGroup g = new FakeGroup() {
      @Override
      public MemberSubscription memberSubscription(String memberId) {
        PluginTests.slowOnCallThread(150);
        return super.memberSubscription(memberId);
      }
    };
    g.topic(FakeGroup.A, 6).member("m1", FakeGroup.A).member("m2", FakeGroup.A);
    GroupAssignment[] got = {null};
    long ms = millis(() -> got[0] = a.assign(g, g));
    assertEquals("", g.violations(got[0]));
    assertEquals(1, a.stats().fallbacks(FallbackReason.DEADLINE), a.stats().toString());
    assertTrue(ms <= 200 + SLACK_MS, "took " + ms + " ms with a 200 ms deadline");
  }

  // A dead assignd: the call that finds it dead fails in milliseconds, every
  // call after it within the backoff at once, and so does the first call
  // after the backoff while assignd is still dead.
  @Test
  void deadAssigndFailsFast() throws Exception {
    try (AssigndProcess own = AssigndProcess.start()) {
      AssigndAssignor a = plugin(own.target(), PluginConfig.BACKOFF_MS, "300", PluginConfig.DEADLINE_MS, "500");
      FakeGroup g = group();
      a.assign(g, g);
      assertEquals(1, a.stats().getServed());
      own.kill();
      for (int round = 0; round < 3; round++) {
        long first = millis(() -> a.assign(g, g));
        assertTrue(first < 100, "round " + round + ": finding assignd dead took " + first + " ms");
        assertSkipsFast(a, g, round);
        Thread.sleep(350);
      }
      assertEquals(3, a.stats().fallbacks(FallbackReason.UNAVAILABLE), a.stats().toString());
      assertEquals(60, a.stats().fallbacks(FallbackReason.BACKOFF), a.stats().toString());
    }
  }

  // A hung assignd costs the deadline once per backoff, no more.
  @Test
  void hungAssigndCostsOneDeadlinePerBackoff() throws Exception {
    try (FakeAssignd hung = FakeAssignd.answering((req, out) -> { })) {
      AssigndAssignor a = plugin(hung.target(), PluginConfig.BACKOFF_MS, "400", PluginConfig.DEADLINE_MS, "200");
      FakeGroup g = group();
      for (int round = 0; round < 2; round++) {
        long first = millis(() -> a.assign(g, g));
        assertTrue(first >= 150 && first <= 200 + SLACK_MS, "round " + round + ": the hung call took " + first + " ms");
        assertSkipsFast(a, g, round);
        Thread.sleep(450);
      }
      assertEquals(2, a.stats().fallbacks(FallbackReason.DEADLINE), a.stats().toString());
    }
  }

  // A target that is not a gRPC server (an HTTP port: assignd's metrics
  // listener, say) is a misconfiguration, reported at configure() (the
  // broker's start) and backed off.
  @Test
  void httpTargetIsMisconfiguredAndBackedOff() throws Exception {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/", x -> {
      byte[] body = "not gRPC".getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    http.start();
    try {
      long before = AssigndAssignor.MISCONFIGURATIONS_LOGGED.get();
      AssigndAssignor a = plugin("127.0.0.1:" + http.getAddress().getPort(), PluginConfig.DEADLINE_MS, "500");
      assertEquals(1, AssigndAssignor.MISCONFIGURATIONS_LOGGED.get() - before, "reported at configure()");
      FakeGroup g = group();
      long first = millis(() -> a.assign(g, g));
      assertTrue(first < 500, "took " + first + " ms");
      assertEquals(1, a.stats().fallbacks(FallbackReason.MISCONFIGURED), a.stats().toString());
      long skipped = millis(() -> a.assign(g, g));
      assertEquals(1, a.stats().fallbacks(FallbackReason.BACKOFF), a.stats().toString());
      assertTrue(skipped < SKIP_MS, "within the backoff: " + skipped + " ms");
      assertEquals(1, AssigndAssignor.MISCONFIGURATIONS_LOGGED.get() - before, "logged once");
    } finally {
      http.stop(0);
    }
  }

  // A target that does not resolve is reported at configure(), the
  // broker's start, not at the first assignment.
  @Test
  void unresolvableTargetIsReportedAtConfigure() throws Exception {
    long before = AssigndAssignor.MISCONFIGURATIONS_LOGGED.get();
    AssigndAssignor a = plugin("dns:///assignd.nowhere.invalid:7070", PluginConfig.DEADLINE_MS, "500");
    assertEquals(1, AssigndAssignor.MISCONFIGURATIONS_LOGGED.get() - before, "reported at configure()");
    FakeGroup g = group();
    GroupAssignment[] got = {null};
    long ms = millis(() -> got[0] = a.assign(g, g));
    assertEquals("", g.violations(got[0]));
    assertTrue(ms <= 500 + SLACK_MS, "took " + ms + " ms");
    assertEquals(1, a.stats().fallbacks(FallbackReason.MISCONFIGURED), a.stats().toString());
  }

  // A coordinator that offloads assignments calls the plugin from several
  // threads at once: every call gets a valid target of its own group.
  @Test
  void concurrentCalls() throws Exception {
    AssigndAssignor a = plugin(assignd.target());
    int threads = 8;
    int calls = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<String>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          StringBuilder bad = new StringBuilder();
          for (int i = 0; i < calls; i++) {
            FakeGroup g = new FakeGroup().topic(FakeGroup.A, 4 + id)
                .member("t" + id + "-a", FakeGroup.A)
                .member("t" + id + "-b-" + i, FakeGroup.A);
            GroupAssignment got = a.assign(g, g);
            bad.append(g.violations(got));
          }
          return bad.toString();
        }));
      }
      for (Future<String> f : done) {
        assertEquals("", f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(threads * calls, a.stats().getServed(), a.stats().toString());
    assertEquals(0, a.stats().getFallbacks(), a.stats().toString());
  }

  /**
   * Twenty calls within the backoff: each skips assignd and returns in
   * under {@link #SKIP_MS}, less the JVM's garbage collections and the
   * thread's wait for a CPU during it ({@link CpuWait}), both measured.
   */
  private static void assertSkipsFast(AssigndAssignor a, FakeGroup g, int round) throws Exception {
    List<String> all = new ArrayList<>();
    boolean slow = false;
    for (int i = 0; i < 20; i++) {
      long wait = CpuWait.nanos();
      long gc = JvmPauses.gcNanos();
      long t0 = System.nanoTime();
      a.assign(g, g);
      long took = System.nanoTime() - t0;
      gc = JvmPauses.gcNanos() - gc;
      wait = CpuWait.nanos() - wait;
      long held = took - gc - wait;
      slow |= held >= TimeUnit.MILLISECONDS.toNanos(SKIP_MS);
      all.add(took / 1000 + "/" + gc / 1000 + "/" + wait / 1000);
    }
    assertTrue(!slow, "round " + round + ": calls within the backoff took (µs: whole/collections/wait for a CPU) " + all);
  }
}
