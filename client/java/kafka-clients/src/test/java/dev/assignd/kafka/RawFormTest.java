package dev.assignd.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.AssignmentServiceGrpc;
import com.google.protobuf.ByteString;
import dev.assignd.testkit.AssigndExtension;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The raw form the leader sends (each member's ConsumerProtocolSubscription
 * bytes, the answer encoded) gives the plan the explicit form gives, byte
 * for byte: on random groups (members, topics, owned partitions with
 * conflicting claims, generations, racks, instance ids, user data), for
 * each of the four assignors, against a real assignd.
 */
class RawFormTest {
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  private static final int GROUPS = Integer.getInteger("assignd.rawform.groups", 25);
  private static ManagedChannel channel;

  @BeforeAll
  static void connect() {
    channel = Grpc.newChannelBuilder(assignd.target(), InsecureChannelCredentials.create()).build();
  }

  @AfterAll
  static void disconnect() {
    channel.shutdownNow();
  }

  static Stream<Arguments> groups() {
    return Groups.pairs().stream().flatMap(p -> java.util.stream.IntStream.range(0, GROUPS).mapToObj(seed -> Arguments.of(p, seed)));
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("groups")
  void samePlanAsTheExplicitForm(Groups.Pair pair, int seed) {
    Random r = new Random(seed * 7919L + pair.name().hashCode());
    Cluster cluster = randomCluster(r);
    ConsumerPartitionAssignor a = Groups.configured(pair.assignd(), Map.<String, Object>of(AssigndConfig.TARGET, assignd.target(), "group.id", "raw-" + seed));
    AssigndBacked backed = (AssigndBacked) a;
    Map<String, Subscription> subs = randomGroup(r, cluster, pair);
    Map<String, List<PartitionInfo>> ppt = partitionsPerTopic(cluster, subs);

    AssignRequest raw = AssignRequests.build("raw-" + seed, a.name(), backed.rebalanceProtocol(), ppt, subs);
    AssignRequest explicit = ExplicitForm.request("raw-" + seed, a.name(), backed.rebalanceProtocol(), ppt, subs);
    AssignResponse rawResp = call(raw);
    AssignResponse explicitResp = call(explicit);
    assertEquals(bytes(explicitResp), bytes(rawResp), "each member's ConsumerProtocolAssignment bytes");
    assertEquals(explicitResp.getFollowupRequired(), rawResp.getFollowupRequired());
    assertEquals(explicitResp.getWarningsList(), rawResp.getWarningsList());

    long served = backed.stats().getServed();
    Map<String, List<TopicPartition>> got = new TreeMap<>();
    a.assign(cluster, new GroupSubscription(subs)).groupAssignment().forEach((m, as) -> got.put(m, as.partitions()));
    assertEquals(served + 1, backed.stats().getServed(), "assignd served the leader's plan");
    assertEquals(ExplicitForm.partitions(explicitResp), got, "the leader's plan, partitions in the explicit form's order");
    if (backed.rebalanceProtocol() == ConsumerPartitionAssignor.RebalanceProtocol.EAGER) {
      // Cooperative rounds with conflicting claims withhold by rules of their own, which other tests check.
      Groups.checkValid(cluster, subs, Groups.planOf(got), false);
    }
  }

  private static AssignResponse call(AssignRequest req) {
    return AssignmentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).assign(req);
  }

  private static Map<String, ByteString> bytes(AssignResponse resp) {
    Map<String, ByteString> out = new TreeMap<>();
    for (MemberAssignment ma : resp.getAssignmentsList()) {
      out.put(ma.getMemberId(), ma.getAssignment());
    }
    return out;
  }

  /** What kafka-clients' AbstractPartitionAssignor hands assignPartitions: the subscribed topics that have metadata. */
  private static Map<String, List<PartitionInfo>> partitionsPerTopic(Cluster cluster, Map<String, Subscription> subs) {
    Map<String, List<PartitionInfo>> out = new HashMap<>();
    subs.values().forEach(s -> s.topics().forEach(t -> {
      List<PartitionInfo> ps = cluster.partitionsForTopic(t);
      if (!ps.isEmpty()) {
        out.put(t, ps);
      }
    }));
    return out;
  }

  /** 1 to 5 topics of 1 to 12 partitions, each replica on a random one of the three racked brokers (or a rackless one). */
  private static Cluster randomCluster(Random r) {
    Node[] nodes = {Groups.NODES[0], Groups.NODES[1], Groups.NODES[2], new Node(3, "b3", 9092)};
    List<PartitionInfo> parts = new ArrayList<>();
    int topics = 1 + r.nextInt(5);
    for (int t = 0; t < topics; t++) {
      int n = 1 + r.nextInt(12);
      for (int p = 0; p < n; p++) {
        Node[] replicas = {nodes[r.nextInt(4)], nodes[r.nextInt(4)]};
        parts.add(new PartitionInfo("t" + t, p, replicas[0], replicas, replicas));
      }
    }
    return new Cluster("random", List.of(nodes), parts, Set.of(), Set.of());
  }

  /**
   * 1 to 12 members subscribing to random topics (sometimes one without
   * metadata); the sticky protocols' members report a previous plan, some
   * at an older generation with claims that conflict, in random order,
   * with the user data the built-in assignor writes after that plan; the
   * others carry opaque user data, or none.
   */
  private static Map<String, Subscription> randomGroup(Random r, Cluster cluster, Groups.Pair pair) {
    List<String> topics = new ArrayList<>(cluster.topics());
    Collections.sort(topics);
    boolean sticky = pair.name().contains("sticky");
    int members = 1 + r.nextInt(12);
    String[] racks = {null, null, "rack-a", "rack-b", "rack-c"};
    Map<String, Subscription> subs = new HashMap<>();
    for (int m = 0; m < members; m++) {
      String id = "m" + r.nextInt(1000) + "-" + m;
      List<String> sub = new ArrayList<>();
      for (String t : topics) {
        if (r.nextInt(3) > 0) {
          sub.add(t);
        }
      }
      if (sub.isEmpty()) {
        sub.add(topics.get(r.nextInt(topics.size())));
      }
      if (r.nextInt(10) == 0) {
        sub.add("no-metadata");
      }
      Collections.shuffle(sub, r);
      int gen = r.nextInt(4) == 0 ? -1 : 3 + r.nextInt(2);
      List<TopicPartition> owned = new ArrayList<>();
      if (gen >= 0) {
        for (String t : sub) {
          for (PartitionInfo p : cluster.partitionsForTopic(t)) {
            if (r.nextInt(members + 1) == 0) {
              owned.add(new TopicPartition(t, p.partition()));
            }
          }
        }
        Collections.shuffle(owned, r);
      }
      ByteBuffer userData;
      if (sticky) {
        ConsumerPartitionAssignor builtIn = pair.builtIn().get();
        if (gen >= 0) {
          builtIn.onAssignment(new Assignment(owned), new ConsumerGroupMetadata("g", gen, id, Optional.empty()));
        }
        userData = builtIn.subscriptionUserData(Set.copyOf(sub));
      } else {
        byte[] b = new byte[r.nextInt(3) * 4];
        r.nextBytes(b);
        userData = b.length == 0 && r.nextBoolean() ? null : ByteBuffer.wrap(b);
      }
      Subscription s = new Subscription(sub, userData, owned, gen, Optional.ofNullable(racks[r.nextInt(racks.length)]));
      if (r.nextInt(4) == 0) {
        s.setGroupInstanceId(Optional.of("instance-" + m));
      }
      subs.put(id, s);
    }
    return subs;
  }
}
