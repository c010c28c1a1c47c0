package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.testkit.AssigndProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * The plugin on a freshly started broker, several starts in a row (system
 * property assignd.coldstarts, default 2): the first target after each
 * start is assignd's, and no call holds the coordinator's thread longer
 * than assignd.deadline.ms plus {@value #SLACK_MS} ms, as the plugin itself
 * measures it (its record of every call). Before the warm-up, the first
 * call took 1.3 to 3 s on a cold broker JVM and fell back.
 */
class ColdStartIT {
  private static final long DEADLINE_MS = PluginConfig.DEFAULT_DEADLINE_MS;
  private static final long SLACK_MS = Long.getLong("assignd.slack.ms", PluginCall.OVERRUN_MS);

  @Test
  void firstTargetAfterEveryStartIsAssignds() throws Exception {
    List<String> plugin = TestBroker.pluginClasspath();
    int starts = Integer.getInteger("assignd.coldstarts", 2);
    Path dir = Files.createTempDirectory("kip848-coldstart-it");
    List<Long> firstMicros = new ArrayList<>();
    List<Long> allMicros = new ArrayList<>();
    List<Long> gcMicros = new ArrayList<>();
    try (AssigndProcess assignd = AssigndProcess.start()) {
      for (int i = 0; i < starts; i++) {
        Path records = dir.resolve("records-" + i + ".txt");
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("group.consumer.assignors", "uniform,range," + AssigndAssignor.class.getName());
        settings.put("assignd.target", assignd.target());
        settings.put("assignd.record.file", records.toString());
        settings.put("group.consumer.min.heartbeat.interval.ms", "100");
        settings.put("group.consumer.heartbeat.interval.ms", "500");
        try (TestBroker broker = TestBroker.start(dir.resolve("broker-" + i), plugin, settings)) {
          try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic("cold", 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
          }
          try (Member m = new Member("c" + i, broker.bootstrap, "kip848-cold", "assignd", null, List.of("cold"),
              new Ownership(), ConcurrentHashMap.newKeySet())) {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (m.owned().size() != 4 && System.nanoTime() < until) {
              Thread.sleep(50);
            }
            assertEquals(4, m.owned().size(), "start " + i + ": the member's partitions");
          }
          List<Records.Entry> calls = Records.atLeast(records, 1);
          assertTrue(!calls.isEmpty(), "start " + i + ": the plugin was called");
          Records.Entry first = calls.get(0);
          assertEquals("SERVED", first.outcome(), "start " + i + ": the first target after the broker's start");
          firstMicros.add(first.nanos() / 1000);
          for (Records.Entry e : calls) {
            allMicros.add(e.nanos() / 1000);
            gcMicros.add(e.gcNanos() / 1000);
            assertTrue(e.heldNanos() <= TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS + SLACK_MS),
                "start " + i + ": a call (" + e.outcome() + ") held the coordinator's thread " + e.heldNanos() / 1e6
                    + " ms (and the JVM's collections " + e.gcNanos() / 1e6 + " ms)");
          }
        } catch (AssertionError | Exception e) {
          Path log = dir.resolve("broker-" + i).resolve("broker").resolve("broker.log");
          if (Files.exists(log)) {
            List<String> lines = Files.readAllLines(log);
            System.err.println("broker log tail:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size())));
          }
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
    long[] s = allMicros.stream().mapToLong(Long::longValue).sorted().toArray();
    System.out.printf("KIP-848 plugin on Kafka %s, %d fresh broker starts: first call after each start (µs) %s; "
        + "all %d calls p50 %d µs, p99 %d µs, max %d µs (deadline %d ms), of which in the JVM's collections %d µs in all%n",
        TestBroker.version(), starts, firstMicros, s.length, s[s.length / 2], s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.99) - 1)],
        s[s.length - 1], DEADLINE_MS, gcMicros.stream().mapToLong(Long::longValue).sum());
  }
}
