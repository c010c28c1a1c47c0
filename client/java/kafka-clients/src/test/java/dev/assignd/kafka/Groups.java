package dev.assignd.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** Test groups, the assignor pairs (assignd's and Java's own) and the plan checks. */
final class Groups {
  private Groups() {}

  /** One assignd assignor and the Java built-in it extends. */
  record Pair(String name, Supplier<ConsumerPartitionAssignor> assignd, Supplier<ConsumerPartitionAssignor> builtIn) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Pair> pairs() {
    return List.of(
        new Pair("cooperative-sticky", AssigndCooperativeStickyAssignor::new, CooperativeStickyAssignor::new),
        new Pair("sticky", AssigndStickyAssignor::new, StickyAssignor::new),
        new Pair("range", AssigndRangeAssignor::new, RangeAssignor::new),
        new Pair("roundrobin", AssigndRoundRobinAssignor::new, RoundRobinAssignor::new));
  }

  static ConsumerPartitionAssignor configured(Supplier<ConsumerPartitionAssignor> s, Map<String, Object> props) {
    ConsumerPartitionAssignor a = s.get();
    if (a instanceof org.apache.kafka.common.Configurable c) {
      Map<String, Object> m = new HashMap<>(props);
      m.putIfAbsent("group.id", "java-test");
      c.configure(m);
    }
    return a;
  }

  static final Node[] NODES = {new Node(0, "b0", 9092, "rack-a"), new Node(1, "b1", 9092, "rack-b"), new Node(2, "b2", 9092, "rack-c")};

  /** Topics t1 (6 partitions), t2 (4) and t3 (3), replicas on two of three racked brokers. */
  static Cluster cluster() {
    List<PartitionInfo> parts = new ArrayList<>();
    Map<String, Integer> counts = Map.of("t1", 6, "t2", 4, "t3", 3);
    for (Map.Entry<String, Integer> e : new TreeMap<>(counts).entrySet()) {
      for (int p = 0; p < e.getValue(); p++) {
        Node[] replicas = {NODES[p % 3], NODES[(p + 1) % 3]};
        parts.add(new PartitionInfo(e.getKey(), p, replicas[0], replicas, replicas));
      }
    }
    return new Cluster("test", List.of(NODES), parts, Set.of(), Set.of());
  }

  /**
   * Four members with mixed subscriptions; for the sticky protocols the
   * first two report what they own, at generation 3, and two have racks.
   */
  static Map<String, Subscription> members(ConsumerPartitionAssignor a, boolean withOwned) {
    Map<String, Subscription> m = new HashMap<>();
    List<TopicPartition> owned1 = withOwned ? List.of(tp("t1", 0), tp("t1", 1), tp("t1", 2), tp("t2", 0)) : List.of();
    List<TopicPartition> owned2 = withOwned ? List.of(tp("t1", 3), tp("t1", 4), tp("t1", 5), tp("t2", 1), tp("t2", 2), tp("t2", 3)) : List.of();
    m.put("m1", new Subscription(List.of("t1", "t2"), a.subscriptionUserData(Set.of("t1", "t2")), owned1, withOwned ? 3 : -1, Optional.of("rack-a")));
    m.put("m2", new Subscription(List.of("t1", "t2", "t3"), a.subscriptionUserData(Set.of("t1", "t2", "t3")), owned2, withOwned ? 3 : -1, Optional.of("rack-b")));
    m.put("m3", new Subscription(List.of("t1", "t2", "t3"), a.subscriptionUserData(Set.of("t1", "t2", "t3")), List.of(), -1, Optional.empty()));
    Subscription s4 = new Subscription(List.of("t3"), a.subscriptionUserData(Set.of("t3")), List.of(), -1, Optional.empty());
    s4.setGroupInstanceId(Optional.of("static-4"));
    m.put("m4", s4);
    return m;
  }

  static TopicPartition tp(String t, int p) {
    return new TopicPartition(t, p);
  }

  static Map<String, Set<TopicPartition>> plan(GroupAssignment ga) {
    Map<String, Set<TopicPartition>> out = new TreeMap<>();
    ga.groupAssignment().forEach((k, v) -> out.put(k, cmp(v.partitions())));
    return out;
  }

  static Map<String, Set<TopicPartition>> planOf(Map<String, List<TopicPartition>> m) {
    Map<String, Set<TopicPartition>> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, cmp(v)));
    return out;
  }

  private static Set<TopicPartition> cmp(List<TopicPartition> l) {
    Set<TopicPartition> s = new TreeSet<>((a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
    s.addAll(l);
    return s;
  }

  /**
   * Every partition of every subscribed topic goes to exactly one of its
   * subscribers; under the cooperative protocol, none to a new owner while
   * another member reports owning it.
   */
  static void checkValid(Cluster cluster, Map<String, Subscription> subs, Map<String, Set<TopicPartition>> plan, boolean cooperative) {
    Map<TopicPartition, String> owner = new HashMap<>();
    for (Map.Entry<String, Set<TopicPartition>> e : plan.entrySet()) {
      for (TopicPartition tp : e.getValue()) {
        String prev = owner.put(tp, e.getKey());
        if (prev != null) {
          fail(tp + " assigned to both " + prev + " and " + e.getKey());
        }
        assertTrue(subs.get(e.getKey()).topics().contains(tp.topic()), e.getKey() + " got " + tp + " without subscribing");
      }
    }
    Set<String> topics = new HashSet<>();
    subs.values().forEach(s -> topics.addAll(s.topics()));
    Set<TopicPartition> pending = new HashSet<>();
    if (cooperative) {
      for (Map.Entry<String, Subscription> e : subs.entrySet()) {
        for (TopicPartition tp : e.getValue().ownedPartitions()) {
          String to = owner.get(tp);
          if (to != null && !to.equals(e.getKey())) {
            fail(tp + " goes to " + to + " while " + e.getKey() + " still owns it");
          }
          if (to == null) {
            pending.add(tp);
          }
        }
      }
    }
    for (String t : topics) {
      Integer n = cluster.partitionCountForTopic(t);
      for (int p = 0; n != null && p < n; p++) {
        TopicPartition tp = tp(t, p);
        if (!owner.containsKey(tp) && !pending.contains(tp)) {
          // Under the cooperative protocol a partition may be withheld for one round only if its owner gives it up.
          fail(tp + " is assigned to no one");
        }
      }
    }
    assertEquals(subs.keySet(), plan.keySet(), "every member gets an entry");
  }
}
