package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.AssignmentServiceGrpc;
import assignd.v1.AssignmentServiceGrpc.AssignmentServiceBlockingStub;
import dev.assignd.common.FallbackReason;
import dev.assignd.testkit.AssigndProcess;
import dev.assignd.testkit.FakeAssignd;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.ConfigException;

/**
 * What the unit tests of the plugin's assignors (consumer, Streams, share)
 * share: a plugin configured for a test, a timer, and the checks every kind
 * of plugin passes alike, since they run one call lifecycle
 * ({@link PluginCall}).
 */
final class PluginTests {
  private static final AtomicInteger NAMES = new AtomicInteger();

  /** Each status assignd may answer, and the fallback reason the plugin counts it under. */
  private static final Object[][] STATUS_REASONS = {
      {Status.RESOURCE_EXHAUSTED, FallbackReason.OVERLOADED},
      {Status.INVALID_ARGUMENT, FallbackReason.INVALID_ARGUMENT},
      {Status.UNIMPLEMENTED, FallbackReason.MISCONFIGURED},
      {Status.PERMISSION_DENIED, FallbackReason.MISCONFIGURED},
      {Status.INTERNAL, FallbackReason.OTHER},
  };

  private PluginTests() {}

  /** A step of a test, which may throw what the test's setup throws (a server that does not start). */
  interface Step<A, T> {
    T apply(A a) throws Exception;
  }

  /**
   * plugin, configured with kv on top of a unique name (under nameKey) and
   * the target (none when null). A new server per test and a busy 2-core
   * machine: the deadline is tested where a test sets it, 5 s elsewhere.
   */
  static <T extends Configurable> T configured(T plugin, String nameKey, String target, String... kv) {
    Map<String, Object> c = new HashMap<>();
    c.put(nameKey, "test-" + NAMES.incrementAndGet());
    c.put(PluginConfig.DEADLINE_MS, "5000");
    if (target != null) {
      c.put(PluginConfig.TARGET, target);
    }
    for (int i = 0; i < kv.length; i += 2) {
      c.put(kv[i], kv[i + 1]);
    }
    plugin.configure(c);
    return plugin;
  }

  /** What assignd at target answers to rpc, asked directly (not through a plugin), within 5 s. */
  static <R> R askDirectly(String target, Function<AssignmentServiceBlockingStub, R> rpc) {
    ManagedChannel ch = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
    try {
      return rpc.apply(AssignmentServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS));
    } finally {
      ch.shutdownNow();
    }
  }

  /** How long call took, in ms. */
  static long millis(Callable<?> call) throws Exception {
    long t0 = System.nanoTime();
    call.call();
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sleeps ms when on a call thread of the plugin (the fallback, on the coordinator's, reads the group at once). */
  static void slowOnCallThread(long ms) {
    if (Thread.currentThread().getName().startsWith("assignd-plugin-call")) {
      sleep(ms);
    }
  }

  /**
   * Every status of {@link #STATUS_REASONS} from a fake assignd (failing
   * makes one that answers with it): assignOnce makes a plugin of it,
   * assigns once and checks the plan; its stats count the status's reason.
   */
  static void statusesMapToReasons(Step<StatusRuntimeException, FakeAssignd> failing, Step<String, PluginStats> assignOnce)
      throws Exception {
    for (Object[] c : STATUS_REASONS) {
      try (FakeAssignd f = failing.apply(((Status) c[0]).withDescription("test").asRuntimeException())) {
        assertEquals(1, assignOnce.apply(f.target()).fallbacks((FallbackReason) c[1]), c[0].toString());
      }
    }
  }

  /**
   * own killed: assign gives the built-in's plan, counted UNAVAILABLE, and
   * within the backoff (backoffMs) again without calling assignd
   * (BACKOFF); own back and the backoff over, assignd serves again.
   */
  static void fallsBackWhileDownAndComesBack(AssigndProcess own, long backoffMs, Callable<?> assign, Callable<?> builtin,
      PluginStats stats) throws Exception {
    own.kill();
    assertEquals(builtin.call(), assign.call());
    assertEquals(1, stats.fallbacks(FallbackReason.UNAVAILABLE));
    assertEquals(builtin.call(), assign.call());
    assertEquals(1, stats.fallbacks(FallbackReason.BACKOFF));
    own.restart();
    Thread.sleep(backoffMs + 100);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (stats.getServed() < 2 && System.nanoTime() < deadline) {
      assign.call();
      Thread.sleep(50);
    }
    assertEquals(2, stats.getServed(), "assignd back: used again");
  }

  /** The first call after configure() is served within deadlineMs: configure warmed the paths and the channel. */
  static void firstCallServedWithin(long deadlineMs, Callable<?> call, PluginStats stats) throws Exception {
    long ms = millis(call);
    assertEquals(1, stats.getServed(), stats.toString());
    assertTrue(ms < deadlineMs, "the first call took " + ms + " ms");
  }

  /** Each setting of bad (key, value) stops the broker's start (configure throws) naming its key. */
  static void refused(Function<String[], ?> configure, String[]... bad) {
    for (String[] kv : bad) {
      ConfigException e = assertThrows(ConfigException.class, () -> configure.apply(kv), String.join("=", kv));
      assertTrue(e.getMessage().contains(kv[0]), e.getMessage());
    }
  }
}
