package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.kafka.broker.probe.ProbeShareAssignor;
import dev.assignd.kafka.broker.probe.ProbeTaskAssignor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What Kafka 4.4's broker gives a custom streams task assignor (KIP-1357,
 * {@code group.streams.assignors}) and a custom share-group assignor
 * (KIP-932, {@code group.share.assignors}): the probe assignors of
 * {@code probe/} are loaded by a real broker, record every call and answer
 * with the broker's built-ins; a Kafka Streams application of two
 * instances on {@code group.protocol=streams} with a changelogged count
 * and one standby, and two share consumers, run against it. The findings
 * are written up in docs/streams-share.md.
 *
 * <p>Built and run only with {@code -Pkafka-newest} (the API is new in
 * 4.4; the default build compiles against the oldest supported broker).
 */
class StreamsShareProbeIT {
  private static final String INPUT = "probe-words";
  private static final String OUTPUT = "probe-counts";
  private static final String SHARE_TOPIC = "probe-share";
  private static final String APP = "probe-app";

  private static Path dir;
  private static Path probeLog;
  private static TestBroker broker;
  private static Admin admin;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("streams-share-probe");
    probeLog = dir.resolve("probe.log");
    Path jar = probeJar(dir.resolve("probe.jar"));
    Map<String, String> settings = new LinkedHashMap<>();
    // The probe first: the first entry is the default of a group that
    // sets no streams.assignor.name.
    settings.put("group.streams.assignors", ProbeTaskAssignor.class.getName() + ",sticky");
    settings.put("group.share.assignors", ProbeShareAssignor.class.getName());
    settings.put("assignd.probe.file", probeLog.toString());
    settings.put("group.streams.num.standby.replicas", "1");
    settings.put("group.streams.initial.rebalance.delay.ms", "0");
    settings.put("group.streams.task.offset.interval.ms", "15000");
    broker = TestBroker.start(dir.resolve("kafka"), List.of(jar.toString()), settings);
    admin = broker.admin();
    admin.createTopics(List.of(new NewTopic(INPUT, 4, (short) 1), new NewTopic(OUTPUT, 4, (short) 1),
        new NewTopic(SHARE_TOPIC, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    TestBroker.closeAll(null, admin, broker);
  }

  /** The probe's classes as a jar for the broker's classpath (testbroker -cp takes jars). */
  private static Path probeJar(Path jar) throws IOException {
    Path classes = Path.of(ProbeTaskAssignor.class.getProtectionDomain().getCodeSource().getLocation().getPath());
    Path pkg = classes.resolve("dev/assignd/kafka/broker/probe");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.list(pkg)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString()));
        out.write(Files.readAllBytes(f));
        out.closeEntry();
      }
    }
    return jar;
  }

  @Test
  void streamsGroupCallsTheProbe() throws Exception {
    produce(INPUT, 400);
    List<KafkaStreams> apps = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        apps.add(streams(i));
      }
      // The first target: two instances, nothing current yet.
      Call first = last(waitFor("streams", c -> c.members.size() == 2, 90));
      System.out.println("first streams call:\n" + first.text);
      assertEquals("1", first.fields.get("standbys"), "group.streams.num.standby.replicas reaches the assignor");
      assertEquals("[]", first.fields.get("rackTags"));
      // groupBy repartitions: a stateless subtopology reading the input and
      // a stateful one (the count) reading the repartition topic, four
      // partitions each.
      assertEquals("[0:4:stateless, 1:4:stateful]", first.fields.get("subtopologies"));
      Set<String> processes = new HashSet<>();
      for (Map<String, String> m : first.members) {
        processes.add(m.get("process"));
        assertEquals("-", m.get("rack"));
        assertEquals("{}", m.get("clientTags"));
        assertEquals("{}", m.get("active"));
      }
      assertEquals(2, processes.size(), "each KafkaStreams instance is a process");
      assertTrue(first.fields.get("thread").startsWith("group-coordinator-"), first.fields.get("thread"));

      // A third instance: the next call carries the first target as the
      // two members' current tasks, and no warm-ups (the client ignores
      // them on this protocol).
      produce(INPUT, 400);
      apps.add(streams(2));
      Call second = last(waitFor("streams", c -> c.members.size() == 3, 90));
      System.out.println("second streams call:\n" + second.text);
      Set<String> current = new HashSet<>();
      Set<String> standby = new HashSet<>();
      for (Map<String, String> m : second.members) {
        current.addAll(tasks(m.get("active")));
        standby.addAll(tasks(m.get("standby")));
        assertEquals("{}", m.get("warmup"));
      }
      assertEquals(Set.of("0-0", "0-1", "0-2", "0-3", "1-0", "1-1", "1-2", "1-3"), current);
      assertEquals(Set.of("1-0", "1-1", "1-2", "1-3"), standby, "standbys only of the stateful subtopology");

      // After the task offset interval, one instance leaves: what the
      // members reported of their tasks' offsets by then.
      Thread.sleep(20_000);
      int before = calls("streams").size();
      apps.remove(2).close(Duration.ofSeconds(10));
      Call third = last(waitFor("streams", c -> c.members.size() == 2 && c.index >= before, 90));
      System.out.println("streams calls: " + (third.index + 1) + "; the last:\n" + third.text);
      // Offsets come for the tasks whose state a member's process keeps
      // without running them (its standbys, and tasks it ran or stood by
      // for before), never for its active tasks.
      boolean reported = false;
      for (Map<String, String> m : third.members) {
        Set<String> offsets = tasks(m.get("offsets").replaceAll("([0-9]+)=\\{", "$1=[").replaceAll("=[0-9]+", "").replace("}", "]"));
        Set<String> both = new HashSet<>(offsets);
        both.retainAll(tasks(m.get("active")));
        assertEquals(Set.of(), both, m.toString());
        reported |= !offsets.isEmpty();
      }
      assertTrue(reported, "no member reported task offsets after the task offset interval");
    } finally {
      for (KafkaStreams s : apps) {
        s.close(Duration.ofSeconds(10));
      }
    }
  }

  /** The tasks of a recorded {subtopology=[partitions]} map, as "subtopology-partition". */
  private static Set<String> tasks(String map) {
    Set<String> out = new HashSet<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\w+)=\\[([0-9, ]*)\\]").matcher(map);
    while (m.find()) {
      for (String p : m.group(2).split(", ")) {
        if (!p.isEmpty()) {
          out.add(m.group(1) + "-" + p);
        }
      }
    }
    return out;
  }

  private static Call last(List<Call> calls) {
    return calls.get(calls.size() - 1);
  }

  @Test
  void shareGroupCallsTheProbe() throws Exception {
    produce(SHARE_TOPIC, 30);
    List<KafkaShareConsumer<String, String>> consumers = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "probe-share");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
        c.subscribe(List.of(SHARE_TOPIC));
        consumers.add(c);
      }
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      List<Call> calls = List.of();
      while (System.nanoTime() < until) {
        for (KafkaShareConsumer<String, String> c : consumers) {
          c.poll(Duration.ofMillis(200));
        }
        calls = calls("share");
        if (calls.stream().anyMatch(c -> c.members.size() == 2)) {
          break;
        }
      }
      Call last = calls.get(calls.size() - 1);
      System.out.println("share calls: " + calls.size() + "\n" + last.text);
      assertEquals(2, last.members.size());
      assertEquals("Homogeneous", last.fields.get("subscriptionType"));
      assertEquals("3", last.topics.get(0).get("partitions"));
      assertFalse(last.targets.isEmpty());
    } finally {
      for (KafkaShareConsumer<String, String> c : consumers) {
        c.close(Duration.ofSeconds(5));
      }
    }
  }

  private static KafkaStreams streams(int instance) throws IOException {
    return WordCount.start(broker, APP, dir.resolve("state-" + instance), INPUT, OUTPUT, "probe-count");
  }

  private static void produce(String topic, int n) throws Exception {
    try (KafkaProducer<String, String> prod = broker.producer()) {
      for (int i = 0; i < n; i++) {
        prod.send(new ProducerRecord<>(topic, "k" + i, "w" + (i % 17)));
      }
      prod.flush();
    }
  }

  /** One call the probe recorded: its first line's fields and its member, topic and target lines. */
  record Call(int index, String text, Map<String, String> fields, List<Map<String, String>> members,
      List<Map<String, String>> topics, List<Map<String, String>> targets) {}

  private static List<Call> waitFor(String kind, Predicate<Call> done, int seconds) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<Call> calls = calls(kind);
    while (calls.stream().noneMatch(done)) {
      if (System.nanoTime() > until) {
        throw new AssertionError("no " + kind + " call matched in " + seconds + " s; calls:\n"
            + String.join("\n", calls.stream().map(Call::text).toList()) + "\nbroker log:\n" + broker.logTail(60));
      }
      Thread.sleep(250);
      calls = calls(kind);
    }
    List<Call> upTo = new ArrayList<>();
    for (Call c : calls) {
      upTo.add(c);
      if (done.test(c)) {
        break;
      }
    }
    return upTo;
  }

  private static List<Call> calls(String kind) throws IOException {
    List<Call> out = new ArrayList<>();
    if (!Files.exists(probeLog)) {
      return out;
    }
    Call cur = null;
    for (String line : Files.readAllLines(probeLog)) {
      if (!line.startsWith(" ")) {
        cur = line.startsWith(kind + "\t") ? new Call(out.size(), line, fields(line), new ArrayList<>(), new ArrayList<>(), new ArrayList<>()) : null;
        if (cur != null) {
          out.add(cur);
        }
        continue;
      }
      if (cur == null) {
        continue;
      }
      Map<String, String> f = fields(line.trim());
      cur = new Call(cur.index, cur.text + "\n" + line, cur.fields, cur.members, cur.topics, cur.targets);
      out.set(out.size() - 1, cur);
      if (f.containsKey("member")) {
        cur.members.add(f);
      } else if (f.containsKey("topic")) {
        cur.topics.add(f);
      } else if (f.containsKey("target")) {
        cur.targets.add(f);
      }
    }
    return out;
  }

  private static Map<String, String> fields(String line) {
    Map<String, String> f = new LinkedHashMap<>();
    for (String part : line.split("\t")) {
      int eq = part.indexOf('=');
      f.put(eq < 0 ? part : part.substring(0, eq), eq < 0 ? "" : part.substring(eq + 1));
    }
    return f;
  }
}
