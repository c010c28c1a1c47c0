package dev.assignd.kafka.broker;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;

/**
 * What every share-group plan must keep (KIP-932), assignd's and the
 * broker's SimpleAssignor's alike, and the quality figures the oracle
 * compares: pairs removed and the balance per topic.
 */
final class ShareInvariants {
  private ShareInvariants() {}

  /**
   * Every way a breaks the rules of a share group's plan for g, or "":
   * only members of g, only topics a member subscribes to, only
   * partitions that exist and are assignable, and every assignable
   * partition of a subscribed topic given to at least one member. A
   * member absent from a has nothing.
   */
  static String violations(FakeGroup g, GroupAssignment a) {
    StringBuilder b = new StringBuilder();
    Map<String, Integer> given = new HashMap<>();
    a.members().forEach((id, m) -> {
      FakeGroup.Sub s = g.members.get(id);
      if (s == null) {
        b.append(id).append(" is not a member; ");
        return;
      }
      m.partitions().forEach((t, ps) -> {
        if (!s.subscribedTopicIds().contains(t)) {
          b.append(id).append(" gets ").append(t).append(", unsubscribed; ");
        }
        for (int p : ps) {
          if (p < 0 || p >= g.numPartitions(t) || !g.isPartitionAssignable(t, p)) {
            b.append(id).append(" gets ").append(t).append("-").append(p).append(", not an assignable partition; ");
          }
          given.merge(t + "-" + p, 1, Integer::sum);
        }
      });
    });
    for (Uuid t : subscribed(g)) {
      for (int p = 0; p < Math.max(0, g.numPartitions(t)); p++) {
        if (g.isPartitionAssignable(t, p) && !given.containsKey(t + "-" + p)) {
          b.append(t).append("-").append(p).append(" has no member; ");
        }
      }
    }
    return b.toString();
  }

  /** The (partition, member) pairs of the group's current assignment that a drops. */
  static int removed(FakeGroup g, GroupAssignment a) {
    int n = 0;
    for (Map.Entry<String, FakeGroup.Owned> e : g.current.entrySet()) {
      var got = a.members().get(e.getKey());
      for (Map.Entry<Uuid, Set<Integer>> tp : e.getValue().partitions().entrySet()) {
        Set<Integer> now = got == null ? Set.of() : got.partitions().getOrDefault(tp.getKey(), Set.of());
        for (int p : tp.getValue()) {
          if (!now.contains(p)) {
            n++;
          }
        }
      }
    }
    return n;
  }

  /** The largest spread, over topics, of the partition counts of a topic's subscribers (max - min). */
  static int memberSpread(FakeGroup g, GroupAssignment a) {
    int worst = 0;
    for (Uuid t : subscribed(g)) {
      int lo = Integer.MAX_VALUE;
      int hi = 0;
      for (Map.Entry<String, FakeGroup.Sub> e : g.members.entrySet()) {
        if (e.getValue().subscribedTopicIds().contains(t)) {
          var m = a.members().get(e.getKey());
          int n = m == null ? 0 : m.partitions().getOrDefault(t, Set.of()).size();
          lo = Math.min(lo, n);
          hi = Math.max(hi, n);
        }
      }
      worst = Math.max(worst, hi - lo);
    }
    return worst;
  }

  /** Subscribers of a topic with an assignable partition that a gives no partition of it. */
  static int idle(FakeGroup g, GroupAssignment a) {
    int n = 0;
    for (Map.Entry<String, FakeGroup.Sub> e : g.members.entrySet()) {
      var m = a.members().get(e.getKey());
      for (Uuid t : e.getValue().subscribedTopicIds()) {
        if (g.numPartitions(t) > 0 && (m == null || m.partitions().getOrDefault(t, Set.of()).isEmpty())) {
          n++;
        }
      }
    }
    return n;
  }

  private static Set<Uuid> subscribed(FakeGroup g) {
    Set<Uuid> out = new HashSet<>();
    g.members.values().forEach(s -> out.addAll(s.subscribedTopicIds()));
    out.removeIf(t -> g.numPartitions(t) < 0);
    return out;
  }
}
