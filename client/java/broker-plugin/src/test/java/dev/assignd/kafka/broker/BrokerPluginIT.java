package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.assignd.testkit.AssigndProcess;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.AssignmentServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plugin on a real Kafka broker (KRaft, testbed/kafkabroker; 4.1.1, or the one of ASSIGND_KAFKA_LIB):
 * the broker loads the packaged jar and its lib/ from
 * group.consumer.assignors, and Java consumers on the KIP-848 protocol with
 * group.remote.assignor=assignd join, leave, restart one by one, restart a
 * static member within its session and see their topic gain partitions,
 * while a producer writes throughout. After each step the group converges
 * to exactly what the plugin returned (and, when assignd served it, what
 * assignd answers again to the same request); no partition ever has two
 * owners; every acknowledged record is consumed. assignd hung (SIGSTOP) and
 * then dead: the group converges through the fallback, counted; assignd
 * back: used again. It prints the latency assignd adds per assignment,
 * from the plugin's records and from the broker's own log.
 */
class BrokerPluginIT {
  private static final String TOPIC = "kip848-orders";
  private static final String OTHER_TOPIC = "kip848-other";
  private static final long BACKOFF_MS = 1000;
  /**
   * The calls' deadline here: twice the default, because this broker serves
   * a dozen consumers and a producer on a shared 2-core machine, where a
   * healthy call took up to 376 ms (Kafka 4.4.0, load average 20) and a
   * step whose last call timed out cannot converge on assignd's plan.
   * ColdStartIT and DeadlineTest hold the plugin to the default.
   */
  private static final long DEADLINE_MS = 2 * PluginConfig.DEFAULT_DEADLINE_MS;
  private static final String CLASSIC_GROUP = "kip848-classic";
  /**
   * What a call may hold the coordinator's thread past its deadline, less
   * the JVM's stops (safepoints, collections included) and the thread's
   * wait for a CPU during it, both measured ({@link TimedAssignor}): this broker serves a dozen consumers
   * and a producer of the same JVM on 2 cores, so a woken thread can wait
   * long for a core (-Dassignd.slack.ms).
   */
  private static final long SLACK_MS = Long.getLong("assignd.slack.ms", PluginCall.OVERRUN_MS);

  private static Path dir;
  private static AssigndProcess assignd;
  private static TestBroker broker;
  private static Admin admin;
  private static Path records;
  private static Path timings;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("kip848-plugin-it");
    records = dir.resolve("records.txt");
    timings = dir.resolve("timings.txt");
    // One policy for both kinds of group: KIP-848 groups arrive under the
    // plugin's label, classic groups under their own id.
    assignd = AssigndProcess.withPolicy(dir,
        "  - name: kip848",
        "    description: groups on the KIP-848 protocol, through the broker plugin",
        "    match: {group_prefixes: [\"kip848:\"]}",
        "    assignor: cooperative-sticky@2",
        "  - name: classic",
        "    description: classic groups led through a shim",
        "    match: {groups: [" + CLASSIC_GROUP + "]}",
        "    assignor: cooperative-sticky@2");
    Map<String, String> settings = new LinkedHashMap<>();
    // The plugin, timed whole on the coordinator's thread (TimedAssignor).
    settings.put("group.consumer.assignors", "uniform,range," + TimedAssignor.class.getName());
    settings.put(TimedAssignor.FILE, timings.toString());
    settings.put("assignd.target", assignd.target());
    settings.put("assignd.backoff.ms", Long.toString(BACKOFF_MS));
    settings.put("assignd.deadline.ms", Long.toString(DEADLINE_MS));
    settings.put("assignd.record.file", records.toString());
    // KIP-848 timings fit for a test: heartbeats every 500 ms, sessions of 10 s.
    settings.put("group.consumer.min.heartbeat.interval.ms", "100");
    settings.put("group.consumer.heartbeat.interval.ms", "500");
    settings.put("group.consumer.min.session.timeout.ms", "1000");
    settings.put("group.consumer.session.timeout.ms", "10000");
    Path timer = TimedAssignor.jar(Path.of(System.getProperty("plugin.test.classes", "target/test-classes")),
        dir.resolve("timed-assignor.jar"));
    broker = TestBroker.start(dir.resolve("broker-run"), TestBroker.pluginClasspath(timer.toString()), settings);
    admin = broker.admin();
    admin.createTopics(List.of(new NewTopic(TOPIC, 6, (short) 1), new NewTopic(OTHER_TOPIC, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    TestBroker.closeAll(dir, admin, broker, assignd);
  }

  private final Ownership ownership = new Ownership();
  private final Set<String> consumed = ConcurrentHashMap.newKeySet();
  private final Map<String, Member> members = new LinkedHashMap<>();

  private Member join(String name, String instanceId) {
    Member m = new Member(name, broker.bootstrap, "kip848-g1", "assignd", instanceId, List.of(TOPIC), ownership, consumed);
    members.put(name, m);
    return m;
  }

  private void leave(String name) throws InterruptedException {
    members.remove(name).close();
  }

  @Test
  void groupOnThePlugin() throws Exception {
    Producer producer = new Producer(broker.bootstrap, TOPIC);
    List<String> steps = new ArrayList<>();
    try {
      join("c1", null);
      join("c2", null);
      join("s3", "static-3");
      steps.add(converge("joins", true));
      long otherBaselineMs = timeOtherGroupJoin();

      mark();
      leave("c2");
      steps.add(converge("a leave", true, 6, true));

      mark();
      admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(9))).all().get(30, TimeUnit.SECONDS);
      steps.add(converge("the topic grows to 9 partitions", true, 9, true));
      assertEquals(9, owners().size());

      // The static member restarts within its session (10 s): it gets its
      // own partitions back.
      Set<TopicPartition> before = members.get("s3").owned();
      String oldId = members.get("s3").memberId();
      leave("s3");
      Member s3 = join("s3", "static-3");
      // The coordinator hands the departed static member's target to its
      // replacement (a new member id) without calling the assignor: the
      // plugin's last assignment holds under the old id.
      waitFor(() -> !s3.memberId().isEmpty(), "the restarted static member's id");
      renamed = Map.of(oldId, s3.memberId());
      steps.add(converge("a static member restarting within its session (the assignor is not called)", true));
      renamed = Map.of();
      assertEquals(before, members.get("s3").owned(), "the static member's partitions after its restart");

      // A rolling restart of the dynamic members, one at a time.
      mark();
      join("c4", null);
      steps.add(converge("a join", true, 9, true));
      for (String name : List.of("c1", "c4")) {
        mark();
        leave(name);
        join(name, null);
        steps.add(converge("rolling restart of " + name, true, 9, true));
      }

      // assignd hung: the call waits for its deadline, then the broker's
      // uniform assigns. Another group on the same coordinator thread
      // meanwhile is timed.
      int fallbacksBefore = fallbacks();
      long otherMs;
      long[] commits = new long[2];
      try (CommitProbe probe = new CommitProbe(broker.bootstrap, OTHER_TOPIC)) {
        Thread.sleep(3000);
        commits[0] = probe.maxMillis();
        ProcessBuilder stopCmd = new ProcessBuilder("kill", "-STOP", Long.toString(assignd.pid()));
        assertEquals(0, stopCmd.inheritIO().start().waitFor());
        try {
          probe.reset();
          mark();
          join("c5", null);
          otherMs = timeOtherGroupJoin();
          steps.add(converge("a join with assignd hung", false, 9, true));
          commits[1] = probe.maxMillis();
        } finally {
          new ProcessBuilder("kill", "-CONT", Long.toString(assignd.pid())).inheritIO().start().waitFor();
        }
      }
      commitMaxMs = commits;
      // assignd dead.
      assignd.kill();
      mark();
      leave("c5");
      steps.add(converge("a leave with assignd dead", false, 9, true));
      assertTrue(fallbacks() > fallbacksBefore, "fallbacks were recorded");

      // assignd back: after the backoff, the plugin uses it again.
      assignd.restart();
      Thread.sleep(BACKOFF_MS + 200);
      mark();
      join("c6", null);
      steps.add(converge("a join with assignd back", true, 9, true));

      // More assignments for the latency figures: a member joins and
      // leaves, six times, in this group (on assignd) and in one of the
      // same size on the broker's uniform.
      Ownership uniformOwners = new Ownership();
      List<Member> uniformBase = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        uniformBase.add(new Member("u" + i, broker.bootstrap, "kip848-uniform", "uniform", null, List.of(TOPIC),
            uniformOwners, ConcurrentHashMap.newKeySet()));
      }
      for (int i = 0; i < 6; i++) {
        mark();
        Member m = join("lat" + i, null);
        waitFor(() -> !m.owned().isEmpty(), "lat" + i + "'s partitions");
        leave("lat" + i);
        waitFor(() -> Records.read(records).size() >= mark + 2, "two assignments for lat" + i);
        Member u = new Member("ulat" + i, broker.bootstrap, "kip848-uniform", "uniform", null, List.of(TOPIC),
            uniformOwners, ConcurrentHashMap.newKeySet());
        waitFor(() -> !u.owned().isEmpty(), "ulat" + i + "'s partitions");
        u.close();
      }
      for (Member m : uniformBase) {
        m.close();
      }
      steps.add(converge("six joins and leaves for the latency figures", true, 9, false));

      producer.stop();
      assertNoLoss(producer);
      Thread.sleep(10 * OffThread.POLL_MS); // the last record and timing, written off the coordinator's thread
      List<Records.Entry> all = Records.read(records);
      List<Timings.Paired> timed = Timings.pair(all, Timings.atLeast(timings, all.size()));
      for (Timings.Paired p : timed) {
        Records.Entry e = p.entry();
        assertTrue(e.thread().startsWith("group-coordinator-event-processor-"), "the plugin ran on " + e.thread());
        // assignd hung or dead included: the plugin holds the coordinator's thread the deadline
        // at most, and its slack. A safepoint of the broker's JVM (a garbage collection, say)
        // stops every thread, the built-in assignors' too, and the wait for a CPU is the
        // machine's: neither is counted (Timings.Call.heldNanos).
        assertTrue(p.call().heldNanos() <= TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS + SLACK_MS),
            "a call held the coordinator's thread: " + p.call() + "; every call: " + timed.stream().map(Timings.Paired::call).toList());
      }
      heldPastDeadline = timed.stream().map(Timings.Paired::call).filter(c -> c.outcome().equals("DEADLINE")).toList();
      assertEquals(List.of(), ownership.violations(), "no partition has two owners");
      for (Member m : members.values()) {
        assertEquals(null, m.failure(), m.name + " failed");
      }
      report(steps, otherBaselineMs, otherMs);
    } catch (AssertionError | Exception e) {
      System.err.println("broker log tail:\n" + broker.logTail(80));
      throw e;
    } finally {
      producer.stop();
      for (Member m : members.values()) {
        m.close();
      }
    }
  }

  /**
   * A mixed fleet on one assignd and one policy file: a classic group led
   * through a shim (franz-go with kgoassign) and a KIP-848 group through the
   * plugin. Both are served, each by its own rule of the same revision.
   */
  @Test
  void mixedFleet() throws Exception {
    String classicTopic = "kip848-mixed-classic";
    String kip848Topic = "kip848-mixed";
    admin.createTopics(List.of(new NewTopic(classicTopic, 4, (short) 1), new NewTopic(kip848Topic, 4, (short) 1)))
        .all().get(30, TimeUnit.SECONDS);
    List<Process> shim = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        shim.add(new ProcessBuilder(kgomember().toString(), "-brokers", broker.bootstrap, "-group", CLASSIC_GROUP,
            "-topic", classicTopic, "-assignd", assignd.target()).redirectErrorStream(true)
            .redirectOutput(dir.resolve("kgomember-" + i + ".log").toFile()).start());
      }
      for (int i = 0; i < 2; i++) {
        members.put("x" + i, new Member("x" + i, broker.bootstrap, "kip848-mixed", "assignd", null, List.of(kip848Topic),
            ownership, consumed));
      }
      String kip848Id = topicId(kip848Topic);
      waitFor(() -> {
        Records.Entry e = Records.last(Records.read(records), Set.of(kip848Id));
        return e != null && e.served() && e.byMember().size() == 2 && e.byMember().values().stream().noneMatch(Set::isEmpty);
      }, "the KIP-848 group's assignment from assignd");
      waitFor(() -> finishedCalls(CLASSIC_GROUP).stream().anyMatch(l -> l.contains("members=2") && l.contains("followup=false")),
          "a settled assignment of the classic group from assignd");
      String classicPolicy = field(finishedCalls(CLASSIC_GROUP).get(0), "policy");
      Records.Entry e = Records.last(Records.read(records), Set.of(kip848Id));
      String kip848Policy = e.response().getPolicy();
      assertTrue(classicPolicy.startsWith("classic/"), classicPolicy);
      assertTrue(kip848Policy.startsWith("kip848/"), kip848Policy);
      assertEquals(classicPolicy.substring("classic/".length()), kip848Policy.substring("kip848/".length()), "one revision");
      assertEquals("cooperative-sticky", e.response().getAssignor());
      assertEquals(2, e.response().getAssignorVersion());
      System.out.println("mixed fleet: classic group " + CLASSIC_GROUP + " under " + classicPolicy
          + ", KIP-848 group under " + kip848Policy + " (" + e.response().getAssignor() + "@" + e.response().getAssignorVersion() + ")");
    } finally {
      for (Process p : shim) {
        p.getOutputStream().close(); // kgomember leaves when its stdin closes
      }
      for (Process p : shim) {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
      for (String n : List.of("x0", "x1")) {
        Member m = members.remove(n);
        if (m != null) {
          m.close();
        }
      }
    }
  }

  /**
   * Every client on the KIP-848 protocol in one group, the plugin its
   * assignor: two Java consumers (kafka-clients), a librdkafka one
   * (confluent-kafka for Python, system property assignd.python naming the
   * interpreter of scripts/test.sh's venv) and a franz-go one (kgomember
   * -server-side). Java and librdkafka name assignd (group.remote.assignor);
   * franz-go can only name uniform, so the group runs what most members
   * name, assignd. Through the joins and the librdkafka member's leave,
   * every target is assignd's, every member ends with a share, no partition
   * has two owners on the shared timeline, and every acknowledged record is
   * consumed.
   */
  @Test
  void everyClientInOneGroup() throws Exception {
    String python = System.getProperty("assignd.python", "");
    if (python.isEmpty() || !Files.isExecutable(Path.of(python))) {
      fail("assignd.python is not set or not executable (scripts/test.sh passes its venv's python, which has confluent-kafka): " + python);
    }
    String topic = "kip848-every-client";
    String group = "kip848-every-client";
    admin.createTopics(List.of(new NewTopic(topic, 8, (short) 1))).all().get(30, TimeUnit.SECONDS);
    String topicId = topicId(topic);
    Ownership owners = new Ownership();
    Set<String> got = ConcurrentHashMap.newKeySet();
    Map<String, Set<Integer>> outside = new ConcurrentHashMap<>();
    Producer producer = new Producer(broker.bootstrap, topic);
    List<Member> java = new ArrayList<>();
    List<Process> procs = new ArrayList<>();
    try {
      for (String n : List.of("j1", "j2")) {
        java.add(new Member(n, broker.bootstrap, group, "assignd", null, List.of(topic), owners, got));
      }
      ProcessBuilder rd = new ProcessBuilder(python, repoRoot().resolve("interop/testdata/confluent_kafka_member.py").toString());
      rd.environment().putAll(Map.of("KAFKA_BROKERS", broker.bootstrap, "GROUP_ID", group, "TOPICS", topic,
          "GROUP_PROTOCOL", "consumer", "REMOTE_ASSIGNOR", "assignd", "CLIENT_ID", "rd1"));
      Process rd1 = rd.redirectError(dir.resolve("rd1.err").toFile()).start();
      procs.add(rd1);
      follow("rd1", rd1, owners, got, outside, topic);
      Process kgo1 = new ProcessBuilder(kgomember().toString(), "-brokers", broker.bootstrap, "-group", group, "-topic", topic,
          "-server-side").redirectError(dir.resolve("kgo1.err").toFile()).start();
      procs.add(kgo1);
      follow("kgo1", kgo1, owners, got, outside, topic);
      everyoneHolds(topicId, java, outside, List.of("rd1", "kgo1"), 4);
      // The librdkafka member leaves (SIGTERM: it closes, leaving the group). Through its
      // handle: Process.destroy would also close the pipe of the events it still writes.
      rd1.toHandle().destroy();
      assertTrue(rd1.waitFor(30, TimeUnit.SECONDS), "rd1 left");
      outside.remove("rd1");
      everyoneHolds(topicId, java, outside, List.of("kgo1"), 3);
      producer.stop();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Set<String> missing = new TreeSet<>();
      do {
        missing.clear();
        producer.where.forEach((v, po) -> {
          if (!got.contains(v) && !got.contains(po)) {
            missing.add(po);
          }
        });
        Thread.sleep(200);
      } while (!missing.isEmpty() && System.nanoTime() < deadline);
      assertEquals(Set.of(), missing, "acknowledged records (partition-offset) never consumed, of " + producer.where.size());
      assertEquals(List.of(), owners.violations(), "no partition has two owners");
      List<Records.Entry> calls = Records.read(records).stream().filter(e -> e.topics().equals(Set.of(topicId))).toList();
      assertTrue(calls.size() >= 2, "the plugin assigned the group: " + calls.size());
      assertEquals(List.of(), calls.stream().filter(e -> !e.served()).map(Records.Entry::outcome).toList(),
          "every target of the group is assignd's");
      System.out.println("every client in one group on Kafka " + TestBroker.version() + ": " + calls.size()
          + " targets, all from assignd; " + producer.where.size() + " records, all consumed");
    } finally {
      producer.stop();
      for (Process p : procs) {
        p.getOutputStream().close(); // kgomember leaves when its stdin closes
        p.destroy();
      }
      for (Process p : procs) {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
      for (Member m : java) {
        m.close();
      }
    }
  }

  /**
   * Waits until the plugin's latest target of the topic has n members, all
   * with partitions, and every member holds exactly its target.
   */
  private static void everyoneHolds(String topicId, List<Member> java, Map<String, Set<Integer>> outside, List<String> others, int n)
      throws Exception {
    waitFor(() -> {
      Records.Entry e = Records.last(Records.read(records), Set.of(topicId));
      if (e == null || e.byMember().size() != n || e.byMember().values().stream().anyMatch(Set::isEmpty)) {
        return false;
      }
      List<Set<Integer>> held = new ArrayList<>();
      for (Member m : java) {
        Set<Integer> ps = new TreeSet<>();
        m.owned().forEach(tp -> ps.add(tp.partition()));
        held.add(ps);
      }
      for (String o : others) {
        held.add(new TreeSet<>(outside.getOrDefault(o, Set.of())));
      }
      List<Set<Integer>> target = new ArrayList<>();
      for (Set<String> ps : e.byMember().values()) {
        Set<Integer> t = new TreeSet<>();
        ps.forEach(p -> t.add(Integer.parseInt(p.substring(p.lastIndexOf('-') + 1))));
        target.add(t);
      }
      return new java.util.HashSet<>(held).equals(new java.util.HashSet<>(target)) && held.size() == target.size();
    }, n + " members each holding its target from assignd");
  }

  private static final Pattern KGO_EVENT = Pattern.compile("(assigned|revoked|lost) (\\S+) ([0-9,]+)");
  private static final Pattern KGO_RECORD = Pattern.compile("record (\\S+) ([0-9]+) ([0-9]+)");
  private static final Pattern RD_PARTITIONS = Pattern.compile("\"partitions\": \\{\"[^\"]+\": \\[([0-9, ]*)\\]");
  private static final Pattern RD_RECORD = Pattern.compile("\"ev\": \"record\".*\"value\": \"([^\"]*)\"");

  /**
   * Reads a member process's events (kgomember's lines, or the Python
   * member's JSON) into the shared timeline, what it holds, and what it
   * consumed ("partition-offset" for kgomember, the value for the others).
   */
  private static void follow(String name, Process p, Ownership owners, Set<String> got, Map<String, Set<Integer>> held, String topic) {
    Set<Integer> mine = ConcurrentHashMap.newKeySet();
    held.put(name, mine);
    Thread t = new Thread(() -> {
      try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
          var copy = Files.newBufferedWriter(dir.resolve(name + ".out"))) {
        for (String line; (line = r.readLine()) != null; ) {
          copy.write(line);
          copy.newLine();
          copy.flush();
          String ev = null;
          List<Integer> ps = new ArrayList<>();
          Matcher m;
          if ((m = KGO_RECORD.matcher(line)).matches()) {
            got.add(m.group(2) + "-" + m.group(3));
          } else if ((m = KGO_EVENT.matcher(line)).matches()) {
            ev = m.group(1);
            for (String s : m.group(3).split(",")) {
              ps.add(Integer.parseInt(s));
            }
          } else if ((m = RD_RECORD.matcher(line)).find()) {
            got.add(m.group(1));
          } else if (line.contains("\"ev\": \"assigned\"") || line.contains("\"ev\": \"revoked\"")) {
            ev = line.contains("\"assigned\"") ? "assigned" : "revoked";
            if ((m = RD_PARTITIONS.matcher(line)).find() && !m.group(1).isBlank()) {
              for (String s : m.group(1).split(",")) {
                ps.add(Integer.parseInt(s.trim()));
              }
            }
          }
          if (ev == null || ps.isEmpty()) {
            continue;
          }
          List<TopicPartition> tps = ps.stream().map(i -> new TopicPartition(topic, i)).toList();
          if (ev.equals("assigned")) {
            owners.assigned(name, tps);
            mine.addAll(ps);
          } else {
            mine.removeAll(ps);
            owners.revoked(name, tps);
          }
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "follow-" + name);
    t.setDaemon(true);
    t.start();
  }

  private static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("go.mod"))) {
      p = p.getParent();
    }
    return p;
  }

  /**
   * Online migration of a classic group to the KIP-848 protocol, which the
   * broker does by itself (group.consumer.migration.policy, default
   * bidirectional): three classic Java consumers (cooperative-sticky) own
   * twelve partitions; a member on the new protocol joins, which converts
   * the group, and then each classic member is restarted on the new
   * protocol. Counted: partitions whose owner (by consumer name) changed at
   * each step, once with the plugin and once with the broker's uniform.
   */
  @Test
  void onlineMigration() throws Exception {
    StringBuilder b = new StringBuilder("online migration of a classic group (3 members, 12 partitions) to KIP-848:\n");
    for (String assignor : List.of("assignd", "uniform")) {
      for (boolean statics : new boolean[] {false, true}) {
        List<Integer> moved = migrate(assignor, statics);
        int total = moved.stream().mapToInt(Integer::intValue).sum();
        b.append(String.format("  %-8s %-7s moved at the switch (a new-protocol member joins): %d; at each classic member's restart: %s; total %d%n",
            assignor, statics ? "static" : "dynamic", moved.get(0), moved.subList(1, moved.size()), total));
      }
    }
    System.out.print(b);
    Files.writeString(Path.of("target", "kip848-migration-report.txt"), b.toString());
  }

  private List<Integer> migrate(String assignor, boolean statics) throws Exception {
    String topic = "kip848-migrate-" + assignor + (statics ? "-static" : "");
    String group = topic;
    admin.createTopics(List.of(new NewTopic(topic, 12, (short) 1))).all().get(30, TimeUnit.SECONDS);
    Ownership own = new Ownership();
    Map<String, Member> ms = new LinkedHashMap<>();
    List<Integer> moved = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        ms.put("m" + i, Member.classic("m" + i, statics ? group + "-m" + i : null, broker.bootstrap, group, List.of(topic), own, consumed));
      }
      Map<TopicPartition, String> before = stable(ms, 12);
      ms.put("new", new Member("new", broker.bootstrap, group, assignor, null, List.of(topic), own, consumed));
      Map<TopicPartition, String> after = stable(ms, 12);
      moved.add(moves(before, after));
      for (int i = 0; i < 3; i++) {
        before = after;
        ms.remove("m" + i).close();
        ms.put("m" + i, new Member("m" + i, broker.bootstrap, group, assignor, statics ? group + "-m" + i : null, List.of(topic), own,
            consumed));
        after = stable(ms, 12);
        moved.add(moves(before, after));
      }
      assertEquals(List.of(), own.violations(), "no partition has two owners during the migration");
      return moved;
    } finally {
      for (Member m : ms.values()) {
        m.close();
      }
    }
  }

  private static int moves(Map<TopicPartition, String> before, Map<TopicPartition, String> after) {
    int n = 0;
    for (Map.Entry<TopicPartition, String> e : after.entrySet()) {
      if (!e.getValue().equals(before.get(e.getKey()))) {
        n++;
      }
    }
    return n;
  }

  /** Waits until the members own all n partitions, each once, unchanged for 2 s; returns the owners. */
  private static Map<TopicPartition, String> stable(Map<String, Member> ms, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    Map<TopicPartition, String> last = null;
    long since = System.nanoTime();
    while (System.nanoTime() < deadline) {
      Map<TopicPartition, String> now = new HashMap<>();
      int count = 0;
      for (Member m : ms.values()) {
        for (TopicPartition p : m.owned()) {
          now.put(p, m.name);
          count++;
        }
      }
      boolean whole = now.size() == n && count == n;
      if (!whole || !now.equals(last)) {
        last = now;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > TimeUnit.SECONDS.toNanos(2)) {
        return now;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the group did not settle on " + n + " partitions in 90 s: " + last);
  }

  /** The topic's id, once the broker's metadata has the new topic. */
  private static String topicId(String topic) throws Exception {
    String[] id = new String[1];
    waitFor(() -> {
      try {
        id[0] = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).topicId().toString();
        return true;
      } catch (java.util.concurrent.ExecutionException e) {
        return false; // just created: not in the metadata yet
      }
    }, "topic " + topic + " in the metadata");
    return id[0];
  }

  /** assignd's log lines for the calls of this group. */
  private static List<String> finishedCalls(String group) {
    List<String> out = new ArrayList<>();
    for (String l : assignd.log()) {
      if (l.contains("msg=\"finished call\"") && l.contains("grpc.method=Assign ") && l.contains(" group=" + group + " ")) {
        out.add(l);
      }
    }
    return out;
  }

  private static String field(String line, String key) {
    Matcher m = Pattern.compile("(?:^| )" + Pattern.quote(key) + "=(\\S+)").matcher(line);
    return m.find() ? m.group(1) : "";
  }

  /** A Go duration as slog prints it (204.653µs, 1.2ms, 1.5s), in ns. */
  static long goDuration(String d) {
    Matcher m = Pattern.compile("([0-9.]+)(ns|µs|us|ms|s)").matcher(d);
    if (!m.matches()) {
      return -1;
    }
    double v = Double.parseDouble(m.group(1));
    return (long) switch (m.group(2)) {
      case "ns" -> v;
      case "µs", "us" -> v * 1e3;
      case "ms" -> v * 1e6;
      default -> v * 1e9;
    };
  }

  private static Path kgomember() throws IOException, InterruptedException {
    return AssigndProcess.command("assignd.kgomember", "./testbed/cmd/kgomember", "kgomember");
  }

  /** Members' current partitions, partition → member name. */
  private Map<TopicPartition, String> owners() {
    Map<TopicPartition, String> out = new HashMap<>();
    for (Member m : members.values()) {
      for (TopicPartition p : m.owned()) {
        out.put(p, m.name);
      }
    }
    return out;
  }

  private int fallbacks() throws IOException {
    return (int) Records.read(records).stream().filter(e -> !e.served()).count();
  }

  /**
   * Waits until every member has its member id and exactly the partitions
   * of the plugin's last assignment of the group, and that assignment came
   * from assignd (served) or from the fallback, as the step expects. A
   * served one must be what assignd answers again to the same request,
   * byte for byte.
   */
  private String converge(String step, boolean served) throws Exception {
    return converge(step, served, -1, false);
  }

  /** The number of records so far: a step that must make a new assignment marks it before acting. */
  private int mark() throws IOException {
    mark = Records.read(records).size();
    return mark;
  }

  private int mark;
  /** The calls that waited for their deadline, timed (the report's). */
  private List<Timings.Call> heldPastDeadline = List.of();
  /** The longest offset commit of another group: in 3 s with assignd healthy, and while it hung. */
  private long[] commitMaxMs = {-1, -1};
  /** Member ids the coordinator replaced (static members) since the plugin's last assignment: old → new. */
  private Map<String, String> renamed = Map.of();

  private Map<String, Set<String>> renamed(Map<String, Set<String>> byMember) {
    Map<String, Set<String>> out = new TreeMap<>();
    byMember.forEach((id, ps) -> out.put(renamed.getOrDefault(id, id), ps));
    return out;
  }

  interface Cond {
    boolean get() throws Exception;
  }

  private static void waitFor(Cond cond, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!cond.get()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": not within 60 s");
      }
      Thread.sleep(50);
    }
  }

  /**
   * converge, where the plugin's assignment must cover this many partitions
   * (-1: any) and, when fresh, be newer than the last {@link #mark()}.
   */
  private String converge(String step, boolean served, int partitions, boolean fresh) throws Exception {
    String topicId = topicId(TOPIC);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String last = "";
    while (System.nanoTime() < deadline) {
      List<Records.Entry> all = Records.read(records);
      Records.Entry e = Records.last(fresh ? all.subList(Math.min(mark, all.size()), all.size()) : all, Set.of(topicId));
      if (e != null && partitions >= 0 && e.byMember().values().stream().mapToInt(Set::size).sum() != partitions) {
        e = null;
      }
      Map<String, Set<String>> got = new TreeMap<>();
      for (Member m : members.values()) {
        Set<String> ps = new TreeSet<>();
        m.owned().forEach(tp -> ps.add(topicId + "-" + tp.partition()));
        got.put(m.memberId(), ps);
      }
      if (e != null && e.served() == served && renamed(e.byMember()).equals(got)) {
        if (served) {
          assertEquals(e.response(), askAgain(e), step + ": assignd's answer to the recorded request");
        }
        return step + ": " + e.outcome() + ", " + members.size() + " members";
      }
      last = "plugin " + (e == null ? "none" : e.outcome() + " " + e.byMember()) + " vs members " + got;
      Thread.sleep(200);
    }
    throw new AssertionError(step + ": the group did not converge to the plugin's assignment in 60 s: " + last);
  }

  private static AssignResponse askAgain(Records.Entry e) {
    ManagedChannel ch = Grpc.newChannelBuilder(assignd.target(), InsecureChannelCredentials.create()).build();
    try {
      return AssignmentServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).assign(e.request());
    } finally {
      ch.shutdownNow();
    }
  }

  /** How long a new member of another group (on uniform) waits for its partitions, in ms. */
  private long timeOtherGroupJoin() throws Exception {
    Ownership own = new Ownership();
    long t0 = System.nanoTime();
    try (Member m = new Member("other", broker.bootstrap, "kip848-g2-" + System.nanoTime(), "uniform", null, List.of(OTHER_TOPIC),
        own, ConcurrentHashMap.newKeySet())) {
      while (m.owned().size() < 4) {
        if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(60)) {
          throw new AssertionError("the other group's member got no partitions in 60 s");
        }
        Thread.sleep(10);
      }
      return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }
  }

  private void assertNoLoss(Producer producer) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Set<String> missing;
    do {
      missing = new TreeSet<>(producer.acked);
      missing.removeAll(consumed);
      if (missing.isEmpty()) {
        return;
      }
      Thread.sleep(200);
    } while (System.nanoTime() < deadline);
    fail(missing.size() + " of " + producer.acked.size() + " acknowledged records never consumed, e.g. "
        + missing.stream().limit(5).toList());
  }

  /** Latency per assignment: the plugin's records, and the broker's own log line per target assignment. */
  private void report(List<String> steps, long otherBaselineMs, long otherMs) throws IOException {
    List<Records.Entry> all = Records.read(records);
    // The first call pays for the broker JVM's cold code paths (class
    // loading, the first protobuf and gRPC calls): reported apart.
    long first = all.isEmpty() ? -1 : all.get(0).nanos();
    long[] served = all.stream().skip(1).filter(Records.Entry::served).mapToLong(Records.Entry::nanos).sorted().toArray();
    long[] fellBack = all.stream().filter(e -> !e.served()).mapToLong(Records.Entry::nanos).sorted().toArray();
    Map<String, List<Long>> brokerMs = new TreeMap<>();
    Pattern line = Pattern.compile("Computed a new target assignment for epoch \\d+ with '([^']+)' assignor in (\\d+)ms");
    for (String l : Files.readAllLines(broker.log())) {
      Matcher m = line.matcher(l);
      if (m.find()) {
        brokerMs.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(Long.parseLong(m.group(2)));
      }
    }
    Map<String, Long> reasons = new TreeMap<>();
    all.stream().filter(e -> !e.served()).forEach(e -> reasons.merge(e.outcome(), 1L, Long::sum));
    StringBuilder b = new StringBuilder("KIP-848 plugin on Kafka " + TestBroker.version() + "\n");
    Set<String> threads = new TreeSet<>();
    all.forEach(e -> threads.add(e.thread()));
    b.append("  plugin called on ").append(threads).append('\n');
    steps.forEach(s -> b.append("  step ").append(s).append('\n'));
    b.append(String.format("  plugin, first call (cold): %.2f ms%n", first / 1e6));
    b.append(String.format("  plugin, served by assignd after the first: %d assignments, p50 %.2f ms, p99 %.2f ms%n",
        served.length, q(served, 0.50) / 1e6, q(served, 0.99) / 1e6));
    long[] server = finishedCalls("kip848:assignd").stream().mapToLong(l -> goDuration(field(l, "grpc.duration")))
        .filter(v -> v >= 0).sorted().toArray();
    b.append(String.format("  assignd's own time per call (its log, grpc.duration): %d calls, p50 %.3f ms, p99 %.3f ms%n",
        server.length, q(server, 0.50) / 1e6, q(server, 0.99) / 1e6));
    b.append(String.format("  plugin, fallback: %d assignments %s, p50 %.2f ms, p99 %.2f ms%n",
        fellBack.length, reasons, q(fellBack, 0.50) / 1e6, q(fellBack, 0.99) / 1e6));
    brokerMs.forEach((k, v) -> {
      long[] s = v.stream().mapToLong(Long::longValue).sorted().toArray();
      b.append(String.format("  broker log, '%s': %d target assignments, p50 %d ms, p99 %d ms, max %d ms%n",
          k, s.length, q(s, 0.5), q(s, 0.99), s[s.length - 1]));
    });
    b.append("  plugin, calls at their deadline (whole, less the JVM's stops and the wait for a CPU): ")
        .append(heldPastDeadline.stream().map(c -> c + " held " + c.heldNanos() / 1000 + " µs").toList()).append('\n');
    b.append(String.format("  a member of another group (on uniform, same coordinator thread) waits for its partitions: "
        + "%d ms with assignd healthy, %d ms while assignd hung%n", otherBaselineMs, otherMs));
    b.append(String.format("  the longest offset commit of another group (same coordinator thread): "
        + "%d ms in 3 s with assignd healthy, %d ms while assignd hung%n", commitMaxMs[0], commitMaxMs[1]));
    try {
      b.append("  load average (1, 5, 15 min) at the end: ").append(Files.readString(Path.of("/proc/loadavg")).trim()).append('\n');
    } catch (IOException e) {
      // not Linux: no load figure
    }
    System.out.print(b);
    Files.writeString(Path.of("target", "kip848-plugin-report.txt"), b.toString());
  }

  private static long q(long[] sorted, double q) {
    if (sorted.length == 0) {
      return -1;
    }
    return sorted[Math.max(0, Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1))];
  }

  /**
   * Commits an offset for another group (a simple consumer, no membership)
   * in a loop and keeps the longest commit: commits are written by the same
   * coordinator thread that runs the assignor, so a stalled assignor call
   * shows here.
   */
  static final class CommitProbe implements AutoCloseable {
    private final java.util.concurrent.atomic.AtomicLong max = new java.util.concurrent.atomic.AtomicLong();
    private final Background loop;

    CommitProbe(String bootstrap, String topic) {
      Properties p = new Properties();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, "kip848-probe");
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      TopicPartition tp = new TopicPartition(topic, 0);
      loop = new Background("commit-probe", stopped -> {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
          c.assign(List.of(tp));
          while (!stopped.getAsBoolean()) {
            long t0 = System.nanoTime();
            c.commitSync(Map.of(tp, new OffsetAndMetadata(0)));
            max.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), Math::max);
            Thread.sleep(20);
          }
        }
      });
    }

    long maxMillis() {
      return max.get();
    }

    void reset() {
      max.set(0);
    }

    @Override
    public void close() throws InterruptedException {
      loop.close();
    }
  }

  /** Writes numbered records round-robin over the topic's partitions, remembering the acknowledged ones. */
  static final class Producer {
    final Set<String> acked = ConcurrentHashMap.newKeySet();
    /** Each acknowledged record's value, to "partition-offset". */
    final Map<String, String> where = new ConcurrentHashMap<>();
    private final Background loop;

    Producer(String bootstrap, String topic) {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "1000");
      p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
      loop = new Background("producer", stopped -> {
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
          for (long i = 0; !stopped.getAsBoolean(); i++) {
            int n = pr.partitionsFor(topic).size();
            String v = Long.toString(i);
            pr.send(new ProducerRecord<>(topic, (int) (i % n), null, v), (md, err) -> {
              if (err == null) {
                acked.add(v);
                where.put(v, md.partition() + "-" + md.offset());
              }
            });
            Thread.sleep(5);
          }
          pr.flush();
        }
      });
    }

    void stop() throws InterruptedException {
      loop.close();
    }
  }

}
