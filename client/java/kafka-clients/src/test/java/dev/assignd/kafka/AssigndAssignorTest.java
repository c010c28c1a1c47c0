package dev.assignd.kafka;

import static dev.assignd.kafka.Groups.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.common.FallbackReason;
import dev.assignd.testkit.AssigndExtension;
import dev.assignd.testkit.FakeAssignd;
import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.AssignmentServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The four assignors against a real assignd, and every way the call can fail. */
class AssigndAssignorTest {
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  static Stream<Groups.Pair> pairs() {
    return Groups.pairs().stream();
  }

  private static Map<String, Object> props(String target) {
    Map<String, Object> m = new HashMap<>();
    if (target != null) {
      m.put(AssigndConfig.TARGET, target);
    }
    return m;
  }

  /**
   * The plan is assignd's answer to the same group, asked here directly
   * in the explicit member form ({@link ExplicitForm}): every member's
   * topics, owned partitions, user data, generation, rack and instance id,
   * the partition counts and the replica racks.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("pairs")
  void planIsAssigndsAnswer(Groups.Pair pair) {
    ConsumerPartitionAssignor a = Groups.configured(pair.assignd(), props(assignd.target()));
    boolean sticky = pair.name().contains("sticky");
    Cluster cluster = Groups.cluster();
    Map<String, Subscription> subs = Groups.members(a, sticky);
    AssigndStats stats = statsOf(a);
    long served = stats.getServed();

    var got = Groups.plan(a.assign(cluster, new GroupSubscription(subs)));
    assertEquals(served + 1, stats.getServed(), "assignd served the plan");
    assertEquals(0, stats.getFallbacks(), "no fallback");

    Map<String, List<PartitionInfo>> ppt = new HashMap<>();
    for (String t : List.of("t1", "t2", "t3")) {
      ppt.put(t, cluster.partitionsForTopic(t));
    }
    AssignRequest req = ExplicitForm.request("java-test", pair.name(), ((AssigndBacked) a).rebalanceProtocol(), ppt, subs);
    ManagedChannel ch = Grpc.newChannelBuilder(assignd.target(), InsecureChannelCredentials.create()).build();
    try {
      AssignResponse resp = AssignmentServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).assign(req);
      assertEquals(Groups.planOf(ExplicitForm.partitions(resp)), got);
    } finally {
      ch.shutdownNow();
    }
    Groups.checkValid(cluster, subs, got, pair.name().equals("cooperative-sticky"));
  }

  static AssigndStats statsOf(ConsumerPartitionAssignor a) {
    return ((AssigndBacked) a).stats();
  }

  /** With assignd unreachable, the plan is the built-in assignor's, and the fallback is counted and logged. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("pairs")
  void fallsBackWhenAssigndIsDown(Groups.Pair pair) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    ConsumerPartitionAssignor a = Groups.configured(pair.assignd(), props("127.0.0.1:" + port));
    ConsumerPartitionAssignor builtIn = pair.builtIn().get();
    boolean sticky = pair.name().contains("sticky");
    Cluster cluster = Groups.cluster();
    long globalBefore = AssigndStats.global().fallbacks(FallbackReason.UNAVAILABLE);
    try (LogCapture log = new LogCapture()) {
      var got = Groups.plan(a.assign(cluster, new GroupSubscription(Groups.members(a, sticky))));
      var want = Groups.plan(builtIn.assign(cluster, new GroupSubscription(Groups.members(builtIn, sticky))));
      assertEquals(want, got);
      assertTrue(log.text().contains("UNAVAILABLE"), log.text());
    }
    assertEquals(1, statsOf(a).fallbacks(FallbackReason.UNAVAILABLE));
    assertEquals(0, statsOf(a).getServed());
    assertEquals(globalBefore + 1, AssigndStats.global().fallbacks(FallbackReason.UNAVAILABLE), "counted in the process total too");
  }

  /** The process totals are on JMX, as kafka-clients' own metrics are. */
  @Test
  void processTotalsAreOnJmx() throws Exception {
    var server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
    var name = new javax.management.ObjectName(AssigndStats.OBJECT_NAME);
    long before = (Long) server.getAttribute(name, "Fallbacks");
    ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, props(null));
    a.assign(Groups.cluster(), new GroupSubscription(Groups.members(a, false)));
    assertEquals(before + 1, (Long) server.getAttribute(name, "Fallbacks"));
    assertEquals(AssigndStats.global().getServed(), (Long) server.getAttribute(name, "Served"));
  }

  @Test
  void fallsBackAtTheDeadline() throws Exception {
    try (FakeAssignd never = FakeAssignd.answering((req, out) -> { })) {
      Map<String, Object> p = props(never.target());
      p.put(AssigndConfig.DEADLINE_MS, "300");
      ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, p);
      long start = System.nanoTime();
      var got = a.assign(Groups.cluster(), new GroupSubscription(Groups.members(a, false)));
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertEquals(Groups.plan(new RangeAssignor().assign(Groups.cluster(), new GroupSubscription(Groups.members(a, false)))), Groups.plan(got));
      assertEquals(1, statsOf(a).fallbacks(FallbackReason.DEADLINE));
      assertTrue(ms >= 250 && ms < 5000, "the call is bounded by its deadline, took " + ms + " ms");
    }
  }

  @Test
  void fallsBackWhenOverloaded() throws Exception {
    try (FakeAssignd busy = FakeAssignd.answering((req, out) -> out.onError(Status.RESOURCE_EXHAUSTED.withDescription("busy").asRuntimeException()))) {
      ConsumerPartitionAssignor a = Groups.configured(AssigndRoundRobinAssignor::new, props(busy.target()));
      a.assign(Groups.cluster(), new GroupSubscription(Groups.members(a, false)));
      assertEquals(1, statsOf(a).fallbacks(FallbackReason.OVERLOADED));
    }
  }

  @Test
  void fallsBackOnAResponseMissingAMember() throws Exception {
    try (FakeAssignd wrong = FakeAssignd.answering((req, out) -> {
      out.onNext(AssignResponse.newBuilder().addAssignments(MemberAssignment.newBuilder().setMemberId("m1")).build());
      out.onCompleted();
    })) {
      ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, props(wrong.target()));
      Cluster cluster = Groups.cluster();
      var subs = Groups.members(a, false);
      var got = Groups.plan(a.assign(cluster, new GroupSubscription(subs)));
      assertEquals(1, statsOf(a).fallbacks(FallbackReason.BAD_RESPONSE));
      Groups.checkValid(cluster, subs, got, false);
    }
  }

  /** A server that does not serve the API (UNIMPLEMENTED) is a misconfigured target: ERROR naming assignd.target. */
  @Test
  void unimplementedIsAMisconfiguredTarget() throws Exception {
    try (FakeAssignd nothing = FakeAssignd.empty(); LogCapture log = new LogCapture()) {
      Map<String, Object> p = props(nothing.target());
      p.put(AssigndConfig.DEADLINE_MS, "20000"); // a cold JVM may take seconds to make its first connection
      ConsumerPartitionAssignor a = Groups.configured(AssigndCooperativeStickyAssignor::new, p);
      a.assign(Groups.cluster(), new GroupSubscription(Groups.members(a, true)));
      assertEquals(1, statsOf(a).getMisconfigurations());
      assertTrue(log.text().contains("ERROR") && log.text().contains("check assignd.target") && log.text().contains("UNIMPLEMENTED"), log.text());
    }
  }

  @Test
  void missingTargetIsLoggedAndFallsBack() {
    try (LogCapture log = new LogCapture()) {
      ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, props(null));
      var subs = Groups.members(a, false);
      var got = Groups.plan(a.assign(Groups.cluster(), new GroupSubscription(subs)));
      Groups.checkValid(Groups.cluster(), subs, got, false);
      assertEquals(1, statsOf(a).getMisconfigurations());
      assertTrue(log.text().contains("ERROR") && log.text().contains("assignd.target is not set"), log.text());
    }
  }

  @Test
  void unusableTargetIsLoggedAndFallsBack() {
    try (LogCapture log = new LogCapture()) {
      ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, props("dns://[bad"));
      a.assign(Groups.cluster(), new GroupSubscription(Groups.members(a, false)));
      assertEquals(1, statsOf(a).getMisconfigurations(), statsOf(a).toString());
      assertTrue(log.text().contains("ERROR") && log.text().contains("assignd.target"), log.text());
    }
  }

  @Test
  void badValuesFailTheConsumerConfiguration() {
    Map<String, Object> p = props("127.0.0.1:1");
    p.put(AssigndConfig.DEADLINE_MS, "soon");
    ConfigException e = assertThrows(ConfigException.class, () -> Groups.configured(AssigndRangeAssignor::new, p));
    assertTrue(e.getMessage().contains(AssigndConfig.DEADLINE_MS), e.getMessage());
    Map<String, Object> q = props("127.0.0.1:1");
    q.put(AssigndConfig.INVALID_ARGUMENT, "ignore");
    assertThrows(ConfigException.class, () -> Groups.configured(AssigndRangeAssignor::new, q));
    Map<String, Object> r = props("127.0.0.1:1");
    r.put(AssigndConfig.TLS_CERT_FILE, "client.pem");
    assertThrows(ConfigException.class, () -> Groups.configured(AssigndRangeAssignor::new, r));
  }

  /** A member id assignd refuses (empty): a group of that shape gets INVALID_ARGUMENT from the real server. */
  private static Map<String, Subscription> invalidGroup() {
    Map<String, Subscription> subs = new HashMap<>();
    subs.put("", new Subscription(List.of("t1")));
    subs.put("m1", new Subscription(List.of("t1")));
    return subs;
  }

  /**
   * INVALID_ARGUMENT, by default: ERROR with the field at fault, counted
   * apart, and the built-in assignor's plan so the group does not stall.
   */
  @Test
  void invalidArgumentFallsBackLoudly() {
    ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, props(assignd.target()));
    try (LogCapture log = new LogCapture()) {
      var got = Groups.plan(a.assign(Groups.cluster(), new GroupSubscription(invalidGroup())));
      var want = Groups.plan(new RangeAssignor().assign(Groups.cluster(), new GroupSubscription(invalidGroup())));
      assertEquals(want, got);
      assertEquals(1, statsOf(a).getInvalidArguments());
      assertEquals(1, statsOf(a).getFallbacks());
      String text = log.text();
      assertTrue(text.contains("ERROR") && text.contains("INVALID_ARGUMENT") && text.contains("field members[0].member_id"), text);
      assertTrue(text.contains(AssigndConfig.INVALID_ARGUMENT + "=fallback"), text);
    }
  }

  /** With assignd.invalid.argument=fail the leader's assignment throws, naming the field. */
  @Test
  void invalidArgumentCanFail() {
    Map<String, Object> p = props(assignd.target());
    p.put(AssigndConfig.INVALID_ARGUMENT, "fail");
    ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, p);
    try (LogCapture log = new LogCapture()) {
      KafkaException e = assertThrows(KafkaException.class, () -> a.assign(Groups.cluster(), new GroupSubscription(invalidGroup())));
      assertTrue(e.getMessage().contains("members[0].member_id"), e.getMessage());
      assertEquals(1, statsOf(a).getInvalidArguments());
    }
  }

  /** cooperative-sticky runs the protocol kafka-clients picks: the highest every listed assignor supports. */
  @Test
  void cooperativeStickyProtocolFollowsTheStrategyList() {
    Map<String, Object> alone = props(assignd.target());
    alone.put("partition.assignment.strategy", List.of(AssigndCooperativeStickyAssignor.class.getName()));
    assertEquals(ConsumerPartitionAssignor.RebalanceProtocol.COOPERATIVE,
        ((AssigndCooperativeStickyAssignor) Groups.configured(AssigndCooperativeStickyAssignor::new, alone)).rebalanceProtocol());

    Map<String, Object> withRange = props(assignd.target());
    withRange.put("partition.assignment.strategy", AssigndCooperativeStickyAssignor.class.getName() + "," + RangeAssignor.class.getName());
    AssigndCooperativeStickyAssignor eager = (AssigndCooperativeStickyAssignor) Groups.configured(AssigndCooperativeStickyAssignor::new, withRange);
    assertEquals(ConsumerPartitionAssignor.RebalanceProtocol.EAGER, eager.rebalanceProtocol());

    // EAGER: owned partitions were revoked before the join, so everything is handed out at once.
    Map<String, Subscription> subs = new HashMap<>();
    subs.put("a", new Subscription(List.of("t1"), eager.subscriptionUserData(Set.of("t1")), List.of(), 2, Optional.empty()));
    subs.put("b", new Subscription(List.of("t1"), eager.subscriptionUserData(Set.of("t1")), List.of(), 2, Optional.empty()));
    var plan = Groups.plan(eager.assign(Groups.cluster(), new GroupSubscription(subs)));
    assertEquals(1, eager.stats().getServed());
    assertEquals(6, plan.get("a").size() + plan.get("b").size());
  }

  @Test
  void cooperativeRoundWithholdsWhatAnotherMemberStillOwns() {
    ConsumerPartitionAssignor a = Groups.configured(AssigndCooperativeStickyAssignor::new, props(assignd.target()));
    Map<String, Subscription> subs = new HashMap<>();
    List<TopicPartition> all = List.of(tp("t1", 0), tp("t1", 1), tp("t1", 2), tp("t1", 3), tp("t1", 4), tp("t1", 5));
    subs.put("old", new Subscription(List.of("t1"), a.subscriptionUserData(Set.of("t1")), all, 4, Optional.empty()));
    subs.put("new", new Subscription(List.of("t1"), a.subscriptionUserData(Set.of("t1")), List.of(), -1, Optional.empty()));
    var plan = Groups.plan(a.assign(Groups.cluster(), new GroupSubscription(subs)));
    assertEquals(3, plan.get("old").size(), plan.toString());
    assertEquals(0, plan.get("new").size(), "the newcomer waits for the follow-up: " + plan);
    Groups.checkValid(Groups.cluster(), subs, plan, true);
  }
}
