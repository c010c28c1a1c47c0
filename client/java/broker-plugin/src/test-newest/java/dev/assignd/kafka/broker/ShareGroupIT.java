package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import assignd.v1.GroupHistoryServiceGrpc;
import assignd.v1.History.Decision;
import assignd.v1.History.GetGroupRequest;
import assignd.v1.History.GetGroupResponse;
import dev.assignd.testkit.AssigndProcess;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A share group (KIP-932) on a real Kafka 4.4 broker whose
 * {@code group.share.assignors} is {@link AssigndShareAssignor}, packaged
 * with its lib/ on the broker's classpath: share consumers join and leave
 * while records are produced, and every record is delivered; each target
 * is assignd's, as the plugin's MBean in the broker's JVM (read over the
 * JDK's attach API), assignd's call log and its history show. Then
 * assignd dies: the targets are SimpleAssignor's, counted as fallbacks,
 * and every record is still delivered.
 */
class ShareGroupIT {
  private static final String TOPIC = "share-it";
  private static final String GROUP = "share-it-group";
  private static final String NAME = "assignd";

  private static Path dir;
  private static AssigndProcess assignd;
  private static TestBroker broker;
  private static Admin admin;
  private static BrokerJmx jmx;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("share-group-it");
    assignd = AssigndProcess.start();
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("group.share.assignors", AssigndShareAssignor.class.getName());
    settings.put("assignd.target", assignd.target());
    // A shared 2-core machine: a generous deadline; a short backoff so
    // that assignd's death shows within the test.
    settings.put("assignd.share.deadline.ms", "2000");
    settings.put("assignd.share.backoff.ms", "1000");
    broker = TestBroker.start(dir.resolve("kafka"), TestBroker.pluginClasspath(), settings);
    admin = broker.admin();
    admin.createTopics(List.of(new NewTopic(TOPIC, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
    // A share group starts at the log's end unless told otherwise: from
    // the start, so that records produced before a consumer joins count.
    admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, GROUP),
        List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
        .all().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    TestBroker.closeAll(null, jmx, admin, broker, assignd);
  }

  @Test
  void everyRecordDeliveredOnAssigndThenOnTheFallback() throws Exception {
    Set<String> delivered = ConcurrentHashMap.newKeySet();
    List<Consumer> consumers = new ArrayList<>();
    try {
      // assignd up: three consumers, a fourth joins, one leaves.
      int produced = produce(0, 120);
      for (int i = 0; i < 3; i++) {
        consumers.add(new Consumer("c" + i, delivered));
      }
      waitUntil(() -> delivered.size() >= 60, 40, "the first records delivered", delivered);
      consumers.add(new Consumer("c3", delivered));
      produced = produce(produced, 80);
      consumers.remove(0).close();
      waitUntil(() -> delivered.size() == 200, 40, "every record of the first phase delivered", delivered);
      Map<String, Long> onAssignd = stats();
      long calls = assigndCalls();
      System.out.println("share group on assignd: " + onAssignd + "; assignd's call log: " + calls + " AssignShare calls");
      assertTrue(onAssignd.get("Served") >= 2, "targets computed by assignd: " + onAssignd);
      assertEquals(0, onAssignd.get("Fallbacks"), "no fallback while assignd is up: " + onAssignd);
      assertTrue(calls >= onAssignd.get("Served"), "assignd logged every call it served (" + calls + ", with the warm-up)");
      String history = history(onAssignd.get("Served"));
      System.out.println("assignd's history of the label: " + history);

      // assignd dead: the membership changes again, and SimpleAssignor
      // computes the targets.
      assignd.kill();
      consumers.add(new Consumer("c4", delivered));
      produce(produced, 100);
      consumers.remove(0).close();
      waitUntil(() -> delivered.size() == 300, 40, "every record delivered with assignd down", delivered);
      waitUntil(() -> stats().get("Fallbacks") >= 1, 20, "a fallback counted", delivered);
      Map<String, Long> down = stats();
      System.out.println("share group with assignd down: " + down);
      assertEquals(onAssignd.get("Served"), down.get("Served"), "nothing served with assignd dead: " + down);
    } finally {
      for (Consumer c : consumers) {
        c.close();
      }
    }
  }

  /**
   * Checks assignd's history of the plugin's label: a share Decision for
   * every plan it served (and the warm-up's), by sticky@1; returns a line
   * for the report.
   */
  private static String history(long served) throws Exception {
    ManagedChannel ch = Grpc.newChannelBuilder(assignd.target(), InsecureChannelCredentials.create()).build();
    try {
      // A generous deadline: a shared 2-core machine (StreamsAssignorIT's note).
      GetGroupResponse g = GroupHistoryServiceGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS)
          .getGroup(GetGroupRequest.newBuilder().setGroupId(ShareConfig.GROUP_ID_PREFIX + NAME).build());
      assertTrue(g.getDecisionsCount() >= served, "assignd's history: " + g.getDecisionsList());
      for (Decision d : g.getDecisionsList()) {
        // By name: the field assignd hides the package assignd.v1 here.
        assertEquals("GROUP_TYPE_SHARE", d.getGroupType().name());
        assertEquals("sticky@1", d.getAssignor());
      }
      Decision last = g.getDecisions(0);
      return String.format("%d decisions, all %s by %s; the latest: %d members, %d partitions, %d pairs removed",
          g.getDecisionsCount(), last.getGroupType(), last.getAssignor(), last.getMemberCount(), last.getPartitions(), last.getShareRemoved());
    } finally {
      ch.shutdownNow();
    }
  }

  /** A share consumer on its own thread (KafkaShareConsumer is single-threaded), acknowledging by polling again. */
  private static final class Consumer implements AutoCloseable {
    private volatile boolean stop;
    private final Thread thread;

    Consumer(String name, Set<String> delivered) {
      Properties p = new Properties();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
      p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      thread = new Thread(() -> {
        try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
          c.subscribe(List.of(TOPIC));
          while (!stop) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
              delivered.add(r.value());
            }
          }
          c.close(Duration.ofSeconds(5));
        }
      }, "share-consumer-" + name);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(15_000);
    }
  }

  /** Produces n records numbered from first; returns first + n. */
  private static int produce(int first, int n) throws Exception {
    try (KafkaProducer<String, String> prod = broker.producer()) {
      for (int i = first; i < first + n; i++) {
        prod.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i));
      }
      prod.flush();
    }
    return first + n;
  }

  private static void waitUntil(BooleanSupplier done, int seconds, String what, Set<String> delivered) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > until) {
        fail(what + ": not within " + seconds + " s (" + delivered.size() + " records delivered; plugin " + stats()
            + ")\nbroker log:\n" + broker.logTail(60));
      }
      Thread.sleep(200);
    }
  }

  /** assignd's "finished call" lines of AssignShare for the plugin's group label, answered. */
  private static long assigndCalls() {
    return assignd.log().stream().filter(l -> l.contains("msg=\"finished call\"") && l.contains("grpc.method=AssignShare ")
        && l.contains(" group=" + ShareConfig.GROUP_ID_PREFIX + NAME + " ") && l.contains("group_type=share")
        && l.contains("grpc.code=OK")).count();
  }

  /** The plugin's MBean in the broker's JVM: Served, Fallbacks and each fallback reason. */
  private static Map<String, Long> stats() {
    try {
      if (jmx == null) {
        jmx = BrokerJmx.attach(broker.dir);
      }
      Map<String, Long> out = new LinkedHashMap<>();
      out.put("Served", (Long) jmx.stat(GroupType.SHARE, NAME, "Served"));
      out.put("Fallbacks", (Long) jmx.stat(GroupType.SHARE, NAME, "Fallbacks"));
      for (Object row : ((TabularData) jmx.stat(GroupType.SHARE, NAME, "FallbacksByReason")).values()) {
        CompositeData d = (CompositeData) row;
        out.put((String) d.get("key"), (Long) d.get("value"));
      }
      return out;
    } catch (Exception e) {
      throw new IllegalStateException("reading the plugin's MBean in the broker: " + e, e);
    }
  }
}
