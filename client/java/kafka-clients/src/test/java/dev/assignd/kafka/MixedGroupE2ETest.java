package dev.assignd.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.assignd.common.Channels;
import dev.assignd.common.FallbackReason;
import dev.assignd.testkit.AssigndProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * End to end on a real Kafka broker (KAFKA_BOOTSTRAP; scripts/test.sh
 * starts one): one cooperative-sticky group of two Java consumers on
 * {@link AssigndCooperativeStickyAssignor} (J1, the first to join, leads),
 * two on Java's built-in {@link CooperativeStickyAssignor} (B1, B2) and a
 * franz-go member on kgoassign (K1), while a producer writes throughout.
 * It proves, on the shared timeline of everyone's callbacks:
 *
 * <ul>
 *   <li>the leader takes its plans from assignd (served count);
 *   <li>a leave (B2) moves only the leaver's partitions;
 *   <li>a rolling restart of the static members (J2, B1, K1) keeps every
 *       other member's partitions, and gives each its own back;
 *   <li>with assignd killed, the Java leader falls back (counted) and the
 *       group takes in a new member and converges, the others only giving
 *       partitions up;
 *   <li>with assignd back, the leader leaves: the new leader, of whatever
 *       kind, keeps the plan sticky (only the leaver's partitions move);
 *   <li>no partition ever has two owners at once;
 *   <li>every produced record is consumed (the ledger).
 * </ul>
 */
class MixedGroupE2ETest {
  private static final int PARTITIONS = 12;
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  private final Timeline timeline = new Timeline();
  private final Map<String, AutoCloseable> live = new LinkedHashMap<>();
  private final List<RecordMetadata> produced = new ArrayList<>();
  private volatile boolean producing = true;
  private Thread producer;
  private AssigndProcess assignd;

  @AfterEach
  void cleanUp() throws Exception {
    producing = false;
    if (producer != null) {
      producer.join(10_000);
    }
    for (AutoCloseable m : live.values()) {
      try {
        m.close();
      } catch (Exception e) {
        // best effort: the test has already failed or finished
      }
    }
    if (assignd != null) {
      assignd.close();
    }
    Channels.shutdownAll();
  }

  static String kgoMemberBinary() throws Exception {
    return AssigndProcess.command("assignd.kgomember", "./testbed/cmd/kgomember", "kgomember").toString();
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void mixedGroupOnARealBroker() throws Exception {
    String bootstrap = System.getenv("KAFKA_BOOTSTRAP");
    if (bootstrap == null || bootstrap.isEmpty()) {
      if ("true".equals(System.getenv("CI"))) {
        fail("KAFKA_BOOTSTRAP is not set: scripts/test.sh starts the broker (broker_up) for this test");
      }
      Assumptions.abort("KAFKA_BOOTSTRAP is not set: no real broker to run on");
    }
    String kgo = kgoMemberBinary();
    assignd = AssigndProcess.start();
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String topic = "java-e2e-" + suffix;
    String group = "java-e2e-" + suffix;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    startProducer(bootstrap, topic);

    Map<String, Object> base = new HashMap<>();
    base.put("bootstrap.servers", bootstrap);
    base.put("group.id", group);
    Map<String, Object> viaAssignd = new HashMap<>(base);
    viaAssignd.put("partition.assignment.strategy", AssigndCooperativeStickyAssignor.class.getName());
    viaAssignd.put(AssigndConfig.TARGET, assignd.target());
    // Generous: this test is about the group, and the machine may be slow; the deadline has its own test.
    viaAssignd.put(AssigndConfig.DEADLINE_MS, "10000");
    Map<String, Object> builtIn = new HashMap<>(base);
    builtIn.put("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());

    AssigndStats stats = AssigndStats.global();
    long served0 = stats.getServed();
    long fallbacks0 = stats.getFallbacks();

    // J1 first, alone: the coordinator makes the first member the leader, and it stays leader.
    startJava("J1", viaAssignd, null, topic);
    converge(Set.of("J1"), "J1 alone");
    startJava("J2", viaAssignd, "j2", topic);
    startJava("B1", builtIn, "b1", topic);
    startJava("B2", builtIn, null, topic);
    startKgo("K1", kgo, bootstrap, group, topic, "k1");
    Map<String, Set<String>> five = converge(Set.of("J1", "J2", "B1", "B2", "K1"), "five members");
    assertTrue(stats.getServed() > served0, "the Java leader took its plans from assignd: " + stats);
    assertEquals(fallbacks0, stats.getFallbacks(), "no fallback while assignd is up: " + stats);

    // A leave moves only the leaver's partitions.
    stop("B2");
    Map<String, Set<String>> four = converge(Set.of("J1", "J2", "B1", "K1"), "after B2 left");
    for (String m : four.keySet()) {
      assertTrue(four.get(m).containsAll(five.get(m)), m + " lost partitions when B2 left: " + five.get(m) + " -> " + four.get(m));
    }

    // A rolling restart of the static members keeps everyone else's partitions.
    Map<String, Set<String>> before = four;
    for (String m : List.of("J2", "B1", "K1")) {
      stop(m);
      switch (m) {
        case "J2" -> startJava("J2", viaAssignd, "j2", topic);
        case "B1" -> startJava("B1", builtIn, "b1", topic);
        default -> startKgo("K1", kgo, bootstrap, group, topic, "k1");
      }
      Map<String, Set<String>> after = converge(Set.of("J1", "J2", "B1", "K1"), "after restarting " + m);
      assertEquals(before, after, "restarting " + m + " moved partitions");
      before = after;
    }

    // assignd killed: the Java leader falls back, the group takes in a newcomer and converges. The
    // coordinator may hand leadership to another member that rejoined first (a built-in or franz-go
    // one, which does not count here), so newcomers keep arriving, up to three, until a Java
    // leader on assignd has led a round.
    long fallbacks = stats.fallbacks(FallbackReason.UNAVAILABLE) + stats.fallbacks(FallbackReason.DEADLINE);
    assignd.kill();
    Set<String> members = new java.util.TreeSet<>(Set.of("J1", "J2", "B1", "K1"));
    for (int i = 3; i <= 5 && stats.fallbacks(FallbackReason.UNAVAILABLE) + stats.fallbacks(FallbackReason.DEADLINE) == fallbacks; i++) {
      String newcomer = "B" + i;
      startJava(newcomer, builtIn, null, topic);
      members.add(newcomer);
      Map<String, Set<String>> after = converge(members, newcomer + " joined with assignd down");
      for (String m : before.keySet()) {
        assertTrue(before.get(m).containsAll(after.get(m)), m + " gained partitions when " + newcomer + " joined: "
            + before.get(m) + " -> " + after.get(m));
      }
      before = after;
    }
    assertTrue(stats.fallbacks(FallbackReason.UNAVAILABLE) + stats.fallbacks(FallbackReason.DEADLINE) > fallbacks,
        "the Java leader fell back: " + stats);

    // assignd back on the same address; then the leader leaves. Whoever leads next (Java on
    // assignd, Java built-in or franz-go on kgoassign) keeps the plan sticky: only J1's
    // partitions move.
    assignd.restart();
    stop("J1");
    members.remove("J1");
    Map<String, Set<String>> noLeader = converge(members, "after the leader J1 left");
    for (String m : members) {
      assertTrue(noLeader.get(m).containsAll(before.get(m)), m + " lost partitions when the leader left: "
          + before.get(m) + " -> " + noLeader.get(m));
    }

    assertEquals(List.of(), timeline.violations(), "no partition had two owners at once\n" + timeline.dump());
    checkLedger();
    System.out.println("mixed group timeline:\n" + timeline.dump() + "\nassignd assignors in this JVM: " + stats
        + "\nrecords produced and consumed: " + produced.size());
  }

  private void startJava(String name, Map<String, Object> props, String instance, String topic) {
    Map<String, Object> p = new HashMap<>(props);
    if (instance != null) {
      p.put("group.instance.id", instance);
    }
    live.put(name, new JavaMember(name, p, topic, timeline));
  }

  private void startKgo(String name, String bin, String bootstrap, String group, String topic, String instance) throws Exception {
    live.put(name, new KgoMember(name, bin, bootstrap, group, topic, assignd.target(), instance, timeline));
  }

  private void stop(String name) throws Exception {
    live.remove(name).close();
  }

  /**
   * Waits until exactly these members own every partition, balanced, with
   * no callback for two seconds; returns the owners.
   */
  private Map<String, Set<String>> converge(Set<String> members, String what) throws InterruptedException {
    long deadline = System.nanoTime() + CONVERGE.toNanos();
    Map<String, Set<String>> owners = Map.of();
    while (System.nanoTime() < deadline) {
      for (AutoCloseable m : live.values()) {
        if (m instanceof JavaMember j && j.failure() != null) {
          throw new AssertionError(j.name + " failed", j.failure());
        }
      }
      owners = timeline.owners();
      int total = owners.values().stream().mapToInt(Set::size).sum();
      int min = owners.values().stream().mapToInt(Set::size).min().orElse(0);
      int max = owners.values().stream().mapToInt(Set::size).max().orElse(0);
      if (owners.keySet().equals(members) && total == PARTITIONS && max - min <= 1 && timeline.quietMillis() > 2000) {
        return owners;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(what + ": the group did not converge within " + CONVERGE + "; owners " + owners
        + "\n" + timeline.dump());
  }

  private void startProducer(String bootstrap, String topic) {
    producer = new Thread(() -> {
      Map<String, Object> p = Map.of("bootstrap.servers", bootstrap, "acks", "all",
          "key.serializer", ByteArraySerializer.class.getName(), "value.serializer", ByteArraySerializer.class.getName());
      try (KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(p)) {
        for (int i = 0; producing; i++) {
          RecordMetadata md = prod.send(new ProducerRecord<>(topic, i % PARTITIONS, null, ("r" + i).getBytes(StandardCharsets.UTF_8))).get();
          synchronized (produced) {
            produced.add(md);
          }
          Thread.sleep(40);
        }
      } catch (Exception e) {
        if (producing) {
          throw new IllegalStateException(e);
        }
      }
    }, "producer");
    producer.setDaemon(true);
    producer.start();
  }

  /** Every record produced was consumed by some member (at least once). */
  private void checkLedger() throws InterruptedException {
    producing = false;
    producer.join(10_000);
    List<RecordMetadata> all;
    synchronized (produced) {
      all = new ArrayList<>(produced);
    }
    assertTrue(all.size() > 100, "the producer wrote throughout: " + all.size());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    List<RecordMetadata> missing = all;
    while (System.nanoTime() < deadline) {
      missing = all.stream().filter(md -> !timeline.wasConsumed(md.topic(), md.partition(), md.offset())).toList();
      if (missing.isEmpty()) {
        return;
      }
      Thread.sleep(250);
    }
    fail(missing.size() + " of " + all.size() + " produced records were never consumed, e.g. " + missing.subList(0, Math.min(5, missing.size())));
  }
}
