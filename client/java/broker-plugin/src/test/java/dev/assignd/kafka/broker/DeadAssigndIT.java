package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.assignd.testkit.AssigndProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A hung, then a dead assignd on a real broker, each call timed whole on
 * the coordinator's thread ({@link TimedAssignor}: the record file the
 * test has on and the plugin's log lines included). One consumer changes
 * its subscription over and over, so its group gets a new target each
 * time. Hung (SIGSTOP): a call costs the deadline, and only one call per
 * backoff period tries assignd. Dead (SIGKILL): the call that tries it
 * fails in milliseconds, one per backoff period. Every other call, within
 * a backoff, returns in under {@value #SKIP_MS} ms. A call's time here is
 * the wall-clock time of the call less the time the JVM was stopped during
 * it (its safepoints from the flight recorder, garbage collections
 * included, which stop every thread, the built-in assignors' too) and
 * less the time the thread waited, runnable, for a CPU (Linux's scheduler
 * statistics; on the shared 2-core machine of CI a thread that is
 * preempted waits several milliseconds for its turn): both measured,
 * neither guessed ({@link Timings.Call#heldNanos}). The distributions with
 * and without them are printed.
 */
class DeadAssigndIT {
  /** What a call within a backoff may take. */
  private static final long SKIP_MS = 5;
  private static final long DEADLINE_MS = PluginConfig.DEFAULT_DEADLINE_MS;
  private static final long BACKOFF_MS = 10_000;
  /** Calls with assignd dead, at least 100 of them within a backoff. */
  private static final int DEAD_CALLS = Integer.getInteger("assignd.dead.calls", 110);

  @Test
  void hungThenDead() throws Exception {
    String testClasses = System.getProperty("plugin.test.classes", "");
    if (testClasses.isEmpty()) {
      fail("plugin.test.classes is not set (run through mvn verify)");
    }
    Path dir = Files.createTempDirectory("kip848-dead-it");
    Path timed = dir.resolve("timed.txt");
    List<Timings.Call> calls = new ArrayList<>();
    try (AssigndProcess assignd = AssigndProcess.start()) {
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put("group.consumer.assignors", "uniform,range," + TimedAssignor.class.getName());
      settings.put("assignd.target", assignd.target());
      settings.put("assignd.deadline.ms", Long.toString(DEADLINE_MS));
      settings.put("assignd.backoff.ms", Long.toString(BACKOFF_MS));
      settings.put("assignd.record.file", dir.resolve("records.txt").toString());
      settings.put(TimedAssignor.FILE, timed.toString());
      settings.put("group.consumer.min.heartbeat.interval.ms", "100");
      settings.put("group.consumer.heartbeat.interval.ms", "100");
      // Kafka 4.4 (KIP-1263) batches a group's targets, one per second by
      // default: here every change makes one. 4.1 has no such setting.
      settings.put("group.consumer.assignment.interval.ms", "0");
      Path timer = TimedAssignor.jar(Path.of(testClasses), dir.resolve("timed-assignor.jar"));
      try (TestBroker broker = TestBroker.start(dir.resolve("broker"), TestBroker.pluginClasspath(timer.toString()), settings)) {
        try {
          try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic("dead-a", 2, (short) 1), new NewTopic("dead-b", 2, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
          }
          try (KafkaConsumer<byte[], byte[]> c = consumer(broker.bootstrap)) {
            subscribe(c, 0);
            assertEquals(List.of("SERVED"), Timings.atLeast(timed, 1).stream().map(Timings.Call::outcome).toList(), "with assignd up");
            new ProcessBuilder("kill", "-STOP", Long.toString(assignd.pid())).inheritIO().start().waitFor();
            // Hung over two backoff periods and a bit: three tries, at most.
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * BACKOFF_MS + BACKOFF_MS / 5);
            int flips = 1;
            while (System.nanoTime() < until) {
              subscribe(c, flips++);
            }
            assignd.kill(); // SIGKILL ends a stopped process too
            for (int i = 0; i < DEAD_CALLS; i++) {
              subscribe(c, flips++);
            }
            int made = flips;
            calls.addAll(Timings.atLeast(timed, made));
          }
        } catch (AssertionError | Exception e) {
          System.err.println("broker log tail:\n" + broker.logTail(60));
          throw e;
        }
      }
    } finally {
      if (!"1".equals(System.getenv("ASSIGND_KAFKA_KEEP"))) {
        try (var walk = Files.walk(dir)) {
          walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
      }
    }
    check(calls.subList(1, calls.size()));
  }

  private static void check(List<Timings.Call> calls) throws Exception {
    List<Timings.Call> skipped = calls.stream().filter(c -> c.outcome().equals("BACKOFF")).toList();
    List<Timings.Call> tries = calls.stream().filter(c -> !c.outcome().equals("BACKOFF")).toList();
    List<Timings.Call> slow = skipped.stream().filter(c -> c.lessGcNanos() >= TimeUnit.MILLISECONDS.toNanos(SKIP_MS)).toList();
    System.out.printf("KIP-848 plugin on Kafka %s, assignd hung then dead (deadline %d ms, backoff %d ms, load average %s): "
        + "%d calls within a backoff, µs: whole %s; less the JVM's collections %s; less the JVM's stops (safepoints, "
        + "collections included) and the wait for a CPU %s; "
        + "%d of them %d ms or more less collections: %s; JVM stopped during them %d µs in all; the calls that tried assignd: %s%n",
        TestBroker.version(), DEADLINE_MS, BACKOFF_MS, Files.readString(Path.of("/proc/loadavg")).trim(), skipped.size(),
        micros(skipped, Timings.Call::nanos), micros(skipped, Timings.Call::lessGcNanos), micros(skipped, Timings.Call::heldNanos),
        slow.size(), SKIP_MS, slow, skipped.stream().mapToLong(Timings.Call::safepointNanos).sum() / 1000, tries);
    assertTrue(skipped.size() >= DEAD_CALLS, "calls within a backoff: " + skipped.size());
    for (Timings.Call c : skipped) {
      assertTrue(c.heldNanos() < TimeUnit.MILLISECONDS.toNanos(SKIP_MS), "a call within the backoff: " + c);
    }
    Set<String> expected = Set.of("DEADLINE", "UNAVAILABLE");
    long deadlines = tries.stream().filter(c -> c.outcome().equals("DEADLINE")).count();
    assertTrue(deadlines >= 2 && deadlines <= 3, "assignd hung over two backoff periods: tries " + tries);
    assertTrue(tries.stream().anyMatch(c -> c.outcome().equals("UNAVAILABLE")), "assignd dead: tries " + tries);
    for (int i = 0; i < tries.size(); i++) {
      Timings.Call t = tries.get(i);
      assertTrue(expected.contains(t.outcome()), "a try: " + t);
      // The deadline bounds a try, hung or dead. One that finds assignd
      // dead usually takes milliseconds, but it waits for the plugin's
      // call thread and gRPC's event loop, whose waits for a CPU are not
      // this thread's: 68 ms once on Kafka 4.1.1 at load average 20.
      assertTrue(t.heldNanos() <= TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS + PluginCall.OVERRUN_MS),
          "a try held the coordinator's thread: " + t);
      if (i > 0) {
        long apart = t.startNanos() - tries.get(i - 1).startNanos();
        assertTrue(apart >= TimeUnit.MILLISECONDS.toNanos(BACKOFF_MS), "two tries within one backoff: " + tries);
      }
    }
  }

  private static String micros(List<Timings.Call> calls, Function<Timings.Call, Long> f) {
    return Quantiles.of(calls.stream().map(c -> f.apply(c) / 1000).toList());
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "kip848-dead");
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "assignd");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * The i-th change of subscription, one topic or both, alternately: polls
   * until the consumer holds all their partitions (one member: the whole
   * target), so that each change is one new target.
   */
  private static void subscribe(KafkaConsumer<byte[], byte[]> c, int i) {
    List<String> topics = i % 2 == 0 ? List.of("dead-a") : List.of("dead-a", "dead-b");
    c.subscribe(topics);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (c.assignment().size() != 2 * topics.size()) {
      if (System.nanoTime() > until) {
        fail("subscribed to " + topics + ", holds " + c.assignment());
      }
      c.poll(Duration.ofMillis(20));
    }
  }
}
