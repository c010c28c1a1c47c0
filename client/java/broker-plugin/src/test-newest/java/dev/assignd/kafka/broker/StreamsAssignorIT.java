package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.GroupHistoryServiceGrpc;
import assignd.v1.History.Decision;
import assignd.v1.History.GetGroupRequest;
import assignd.v1.History.GetGroupResponse;
import assignd.v1.TaskAssignment.GroupType;
import dev.assignd.testkit.AssigndProcess;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The task assignor on a real Kafka 4.4 broker: the packaged jar and its
 * lib/ on the broker's classpath, {@link AssigndTaskAssignor} first in
 * {@code group.streams.assignors}, and a Kafka Streams application on
 * {@code group.protocol=streams} with a changelogged count and one
 * standby. Three instances join and one leaves, while records are
 * produced between the steps; after each step the instances run exactly
 * the active tasks of the plugin's last plan, which assignd computed
 * by its policy's rule for streams groups (the plugin's record of each
 * call, its MBean over JMX, assignd's history of the label and its log of
 * AssignTasks calls say so), and the counts reflect every
 * record. Then assignd is killed: the next plan is the broker's
 * StickyTaskAssignor's (UNAVAILABLE), and the application goes on
 * processing.
 *
 * <p>Built and run only with {@code -Pkafka-newest}.
 */
class StreamsAssignorIT {
  private static final String INPUT = "streams-words";
  private static final String OUTPUT = "streams-counts";
  private static final String APP = "streams-assignd";
  private static final String WORDS_PREFIX = "w";
  private static final int WORDS = 13;
  /** Twice the default deadline, as BrokerPluginIT: a broker, three Streams instances and Maven on 2 shared cores. */
  private static final long DEADLINE_MS = 2 * PluginConfig.DEFAULT_DEADLINE_MS;
  private static final long SLACK_MS = Long.getLong("assignd.slack.ms", 250);
  private static final String RULE = "streams-groups";
  private static final String LABEL = "kip1071:assignd";

  private static Path dir;
  private static Path records;
  private static AssigndProcess assignd;
  private static TestBroker broker;
  private static Admin admin;
  private final Map<String, Integer> produced = new TreeMap<>();
  private String history = "";
  private int sent;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("streams-assignor-it");
    records = dir.resolve("task-records.txt");
    // Streams groups arrive under the plugin's label; the rule serves
    // them only (group_types), with the task assignor of its choice.
    assignd = AssigndProcess.withPolicy(dir,
        "  - name: " + RULE,
        "    description: Kafka Streams groups, through the broker's task assignor",
        "    match: {group_prefixes: [\"kip1071:\"], group_types: [streams]}",
        "    task_assignor: sticky@1");
    Map<String, String> settings = new LinkedHashMap<>();
    // First: the default of a group that sets no streams.assignor.name.
    settings.put("group.streams.assignors", AssigndTaskAssignor.class.getName() + ",sticky");
    settings.put("assignd.target", assignd.target());
    settings.put(TaskAssignorConfig.DEADLINE_MS, Long.toString(DEADLINE_MS));
    settings.put(TaskAssignorConfig.BACKOFF_MS, "1000");
    settings.put(TaskAssignorConfig.RECORD_FILE, records.toString());
    settings.put("group.streams.num.standby.replicas", "1");
    settings.put("group.streams.initial.rebalance.delay.ms", "0");
    settings.put("group.streams.min.heartbeat.interval.ms", "500");
    settings.put("group.streams.heartbeat.interval.ms", "1000");
    broker = TestBroker.start(dir.resolve("kafka"), TestBroker.pluginClasspath(), settings);
    admin = broker.admin();
    admin.createTopics(List.of(new NewTopic(INPUT, 4, (short) 1), new NewTopic(OUTPUT, 4, (short) 1)))
        .all().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    TestBroker.closeAll(dir, admin, broker, assignd);
  }

  @Test
  void streamsGroupOnThePlugin() throws Exception {
    Map<String, KafkaStreams> apps = new LinkedHashMap<>();
    List<String> steps = new ArrayList<>();
    long t0 = System.nanoTime();
    try {
      produce(300);
      Mark mark = mark();
      for (String name : List.of("a", "b", "c")) {
        apps.put(name, streams(name));
      }
      steps.add(step("three instances join", mark, apps, 3, true));

      produce(300);
      mark = mark();
      apps.remove("b").close(Duration.ofSeconds(20));
      steps.add(step("one leaves", mark, apps, 2, true));

      // Every plan so far is assignd's, the first after the broker's start
      // too (the warm-up at configure).
      List<TaskRecords.Entry> before = TaskRecords.read(records);
      List<String> outcomes = before.stream().map(TaskRecords.Entry::outcome).toList();
      assertTrue(!outcomes.isEmpty() && outcomes.stream().allMatch("SERVED"::equals), "the plans before assignd is killed: " + outcomes);
      // The policy's rule chose them, and assignd's history has one
      // streams Decision per plan (read now: it lives in assignd's memory).
      for (TaskRecords.Entry e : before) {
        assertTrue(e.response().getPolicy().startsWith(RULE + "/"), "the policy of a plan: " + e.response().getPolicy());
      }
      history = history(before.size());

      // assignd killed: the next target is the fallback's, and the
      // application goes on.
      assignd.kill();
      produce(300);
      mark = mark();
      apps.put("d", streams("d"));
      steps.add(step("one joins while assignd is dead", mark, apps, 3, false));

      List<TaskRecords.Entry> all = TaskRecords.read(records);
      for (TaskRecords.Entry e : all) {
        assertTrue(e.heldNanos() <= TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS + SLACK_MS),
            "a call (" + e.outcome() + ") held the coordinator's thread " + e.heldNanos() / 1e6 + " ms");
        assertTrue(e.thread().startsWith("group-coordinator-"), e.thread());
      }
      long served = all.stream().filter(TaskRecords.Entry::served).count();
      long late = all.stream().filter(e -> e.outcome().equals("DEADLINE")).count();
      // assignd's log: one finished AssignTasks call per plan it served,
      // and one per call the plugin gave up on at its deadline.
      List<String> calls = finishedCalls(LABEL);
      assertTrue(calls.size() >= served && calls.size() <= served + late,
          "assignd's AssignTasks calls " + calls.size() + " vs the plugin's served plans " + served + " and late ones " + late);
      try (BrokerJmx jmx = BrokerJmx.attach(broker.dir)) {
        assertEquals(served, ((Number) jmx.taskAssignorStat("assignd", "Served")).longValue(), "the MBean's served count");
        assertEquals("STREAMS", jmx.taskAssignorStat("assignd", "GroupType"));
        assertEquals(LABEL, jmx.taskAssignorStat("assignd", "GroupId"));
        report(all, calls, steps, history, jmx, System.nanoTime() - t0);
      }
    } catch (AssertionError | Exception e) {
      System.err.println("broker log tail:\n" + broker.logTail(80));
      throw e;
    } finally {
      for (KafkaStreams s : apps.values()) {
        s.close(Duration.ofSeconds(10));
      }
    }
  }

  /**
   * Waits for the step's plan (a call after mark with this many members, by assignd
   * when servedByAssignd, else by the fallback), for the instances to run
   * exactly its active tasks, and for the counts to reflect every record
   * produced so far. Returns a line for the report.
   */
  private String step(String what, Mark mark, Map<String, KafkaStreams> apps, int members, boolean servedByAssignd)
      throws Exception {
    TaskRecords.Entry plan = waitForPlan(e -> e.members() == members && e.served() == servedByAssignd, mark.calls(), what);
    assertEquals("", planViolations(plan), what + ": the plan");
    if (!servedByAssignd) {
      assertTrue(Set.of("UNAVAILABLE", "BACKOFF", "DEADLINE").contains(plan.outcome()), what + ": " + plan.outcome());
    }
    // The instances run what the last plan says (a plan after the one
    // waited for may follow, as members settle): compared per process.
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    List<Set<String>> want;
    List<Set<String>> running;
    do {
      List<TaskRecords.Entry> all = TaskRecords.read(records);
      want = byProcess(all.get(all.size() - 1));
      running = new ArrayList<>();
      for (KafkaStreams s : apps.values()) {
        Set<String> ts = new TreeSet<>();
        if (s.state() == KafkaStreams.State.RUNNING) {
          for (ThreadMetadata t : s.metadataForLocalThreads()) {
            t.activeTasks().forEach(task -> ts.add(task.taskId().toString()));
          }
        }
        running.add(ts);
      }
      running.sort(java.util.Comparator.comparing(Object::toString));
      if (running.equals(want)) {
        break;
      }
      Thread.sleep(200);
    } while (System.nanoTime() < until);
    assertEquals(want, running, what + ": the instances' active tasks vs the plugin's last plan");
    Map<String, Long> counts = awaitCounts(what);
    long surplus = counts.values().stream().mapToLong(Long::longValue).sum() - sent;
    return String.format("%s: plan %s with %d members; every record counted %.1f s after the step began "
        + "(%d records, %d counted twice: at-least-once)",
        what, plan.outcome(), plan.members(), (System.nanoTime() - mark.nanos()) / 1e9, sent, surplus);
  }

  /** When a step began, and how many calls the plugin had recorded by then: the step's plans are those after. */
  private record Mark(int calls, long nanos) {}

  private static Mark mark() throws IOException {
    return new Mark(TaskRecords.read(records).size(), System.nanoTime());
  }

  /** What is wrong with a plan: each task active once, standbys not on their active's process. */
  private static String planViolations(TaskRecords.Entry e) {
    Map<String, String> process = new HashMap<>();
    e.actives().keySet().forEach(m -> process.put(m, e.processes().getOrDefault(m, m))); // as byProcess
    Map<String, Integer> active = new HashMap<>();
    Set<String> onProcess = new TreeSet<>();
    List<String> out = new ArrayList<>();
    e.actives().forEach((m, ts) -> ts.forEach(t -> {
      active.merge(t, 1, Integer::sum);
      if (!onProcess.add(process.get(m) + "/" + t)) {
        out.add(t + " twice on " + process.get(m));
      }
    }));
    e.standbys().forEach((m, ts) -> ts.forEach(t -> {
      if (!onProcess.add(process.get(m) + "/" + t)) {
        out.add("standby " + t + " beside another replica on " + process.get(m));
      }
    }));
    // groupBy repartitions: a stateless subtopology over the input, a
    // stateful one (the count) over the repartition topic, 4 tasks each.
    for (String s : List.of("0", "1")) {
      for (int p = 0; p < 4; p++) {
        if (active.getOrDefault(s + "_" + p, 0) != 1) {
          out.add(s + "_" + p + " active " + active.getOrDefault(s + "_" + p, 0) + " times");
        }
      }
    }
    if (active.size() != 8) {
      out.add("tasks " + new TreeSet<>(active.keySet()));
    }
    return String.join("; ", out);
  }

  /**
   * A plan's active tasks per process, sorted; per member when the plan
   * has no request (a fallback whose call failed), which here is the same
   * (one stream thread per instance).
   */
  private static List<Set<String>> byProcess(TaskRecords.Entry e) {
    Map<String, Set<String>> out = new TreeMap<>();
    Map<String, String> process = e.processes();
    e.actives().forEach((m, ts) -> out.computeIfAbsent(process.getOrDefault(m, m), k -> new TreeSet<>()).addAll(ts));
    List<Set<String>> l = new ArrayList<>(out.values());
    l.sort(java.util.Comparator.comparing(Object::toString));
    return l;
  }

  private static TaskRecords.Entry waitForPlan(Predicate<TaskRecords.Entry> done, int from, String what) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      List<TaskRecords.Entry> all = TaskRecords.read(records);
      for (int i = from; i < all.size(); i++) {
        if (done.test(all.get(i))) {
          return all.get(i);
        }
      }
      Thread.sleep(200);
    }
    List<String> seen = new ArrayList<>();
    TaskRecords.read(records).forEach(e -> seen.add(e.outcome() + "/" + e.members()));
    throw new AssertionError(what + ": no such plan in 60 s; the plugin's calls: " + seen);
  }

  /** Waits until each word's last count in the output is at least what was produced (at-least-once); returns the counts. */
  private Map<String, Long> awaitCounts(String what) throws Exception {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    Map<String, Long> last = new TreeMap<>();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        parts.add(new TopicPartition(OUTPUT, i));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < until) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          last.put(r.key(), Long.parseLong(r.value()));
        }
        boolean all = true;
        for (Map.Entry<String, Integer> e : produced.entrySet()) {
          all &= last.getOrDefault(e.getKey(), 0L) >= e.getValue();
        }
        if (all) {
          return last;
        }
      }
    }
    throw new AssertionError(what + ": the counts " + last + " do not reflect every record produced: " + produced);
  }

  private KafkaStreams streams(String instance) throws IOException {
    return WordCount.start(broker, APP, dir.resolve("state-" + instance), INPUT, OUTPUT, "word-count");
  }

  private void produce(int n) throws Exception {
    try (KafkaProducer<String, String> prod = broker.producer()) {
      for (int i = 0; i < n; i++) {
        String w = WORDS_PREFIX + (sent % WORDS);
        prod.send(new ProducerRecord<>(INPUT, "k" + sent, w)).get(30, TimeUnit.SECONDS);
        produced.merge(w, 1, Integer::sum);
        sent++;
      }
    }
  }

  /**
   * Checks assignd's history of the label: one streams Decision per plan
   * it served, by the policy's rule, of the group's eight tasks;
   * returns a line for the report.
   */
  private static String history(int plans) throws Exception {
    ManagedChannel ch = Grpc.newChannelBuilder(assignd.target(), InsecureChannelCredentials.create()).build();
    try {
      // A generous deadline: on a shared 2-core machine at load 36, a new
      // channel took 5 s to resolve 127.0.0.1 (its threads waited for a CPU).
      GetGroupResponse g = GroupHistoryServiceGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS)
          .getGroup(GetGroupRequest.newBuilder().setGroupId(LABEL).build());
      assertEquals(plans, g.getDecisionsCount(), "assignd's history of " + LABEL + ": " + g.getDecisionsList());
      for (Decision d : g.getDecisionsList()) {
        assertEquals(GroupType.GROUP_TYPE_STREAMS, d.getGroupType());
        assertEquals(RULE, d.getPolicyRule());
        assertEquals("sticky@1", d.getAssignor());
        assertEquals(8, d.getTasks(), "a decision's tasks");
      }
      Decision last = g.getDecisions(0);
      return String.format("%d decisions, all %s by rule %s; the latest: %d members, %d processes, %d standbys, %d actives moved",
          g.getDecisionsCount(), last.getGroupType(), last.getPolicyRule(), last.getMemberCount(), last.getProcesses(),
          last.getStandbyTasks(), last.getActiveMoved());
    } finally {
      ch.shutdownNow();
    }
  }

  /** assignd's log lines for the AssignTasks calls of this group label. */
  private static List<String> finishedCalls(String group) {
    List<String> out = new ArrayList<>();
    for (String l : assignd.log()) {
      if (l.contains("msg=\"finished call\"") && l.contains("grpc.method=AssignTasks ") && l.contains(" group=" + group + " ")) {
        out.add(l);
      }
    }
    return out;
  }

  private static void report(List<TaskRecords.Entry> all, List<String> calls, List<String> steps, String history, BrokerJmx jmx,
      long nanos) throws Exception {
    long[] served = all.stream().filter(TaskRecords.Entry::served).mapToLong(TaskRecords.Entry::nanos).sorted().toArray();
    Map<String, Long> fellBack = new TreeMap<>();
    all.stream().filter(e -> !e.served()).forEach(e -> fellBack.merge(e.outcome(), 1L, Long::sum));
    long[] server = calls.stream().mapToLong(l -> BrokerPluginIT.goDuration(field(l, "grpc.duration"))).filter(v -> v >= 0)
        .sorted().toArray();
    StringBuilder b = new StringBuilder("Streams task assignor on Kafka " + TestBroker.version() + "\n");
    steps.forEach(s -> b.append("  step ").append(s).append('\n'));
    b.append(String.format("  plugin, served by assignd: %d plans, p50 %.2f ms, max %.2f ms (deadline %d ms)%n",
        served.length, q(served, 0.5) / 1e6, served.length == 0 ? 0 : served[served.length - 1] / 1e6, DEADLINE_MS));
    b.append(String.format("  assignd's own time per AssignTasks (its log): %d calls, p50 %.3f ms, max %.3f ms%n",
        server.length, q(server, 0.5) / 1e6, server.length == 0 ? 0 : server[server.length - 1] / 1e6));
    b.append("  plugin, fallback to StickyTaskAssignor: ").append(fellBack).append('\n');
    b.append("  assignd's history, before it was killed: ").append(history).append('\n');
    b.append(String.format("  MBean: Served %s, Fallbacks %s, LastOutcome %s, ServedLatencyP50Micros %s%n",
        jmx.taskAssignorStat("assignd", "Served"), jmx.taskAssignorStat("assignd", "Fallbacks"),
        jmx.taskAssignorStat("assignd", "LastOutcome"), jmx.taskAssignorStat("assignd", "ServedLatencyP50Micros")));
    b.append(String.format("  the test: %.1f s%n", nanos / 1e9));
    System.out.print(b);
  }

  private static long q(long[] sorted, double q) {
    return sorted.length == 0 ? 0 : sorted[Math.max(0, Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1))];
  }

  private static String field(String line, String key) {
    Matcher m = Pattern.compile("(?:^| )" + Pattern.quote(key) + "=(\\S+)").matcher(line);
    return m.find() ? m.group(1) : "";
  }
}
