package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.testkit.AssigndExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker's own share assignor, Kafka 4.4's {@link SimpleAssignor}, as
 * the oracle of assignd's (AssignShare through {@link AssigndShareAssignor}):
 * random share groups through chains of epochs (members join and leave,
 * change their subscriptions, topics gain partitions), each side fed its
 * own previous answer as the coordinator feeds an assignor. Both sides'
 * plans are checked with {@link ShareInvariants}; assignd's must always
 * hold, and it must remove no more (partition, member) pairs in total.
 * The figures (docs/streams-share.md) are printed.
 *
 * <p>{@code -Dassignd.share.oracle.chains=N} (default 200) and
 * {@code -Dassignd.share.oracle.seed=S} (default 1) for a bigger run by
 * hand.
 */
class ShareOracleTest {
  private static final int CHAINS = Integer.getInteger("assignd.share.oracle.chains", 200);
  private static final long SEED = Long.getLong("assignd.share.oracle.seed", 1);
  private static final int ROUNDS = 8;
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  /** One side's totals over every chain. */
  static final class Side {
    final String name;
    final ShareGroupPartitionAssignor assignor;
    long plans;
    long invalid;
    long removed;
    long idle;
    long unbalanced;
    int worstSpread;
    String firstViolation = "";
    /** Plans breaking each kind of rule: a topic given to a member that does not subscribe to it, a partition given to nobody. */
    long unsubscribed;
    long unassigned;

    Side(String name, ShareGroupPartitionAssignor assignor) {
      this.name = name;
      this.assignor = assignor;
    }

    /** Assigns g, scores the plan, and makes it g's current assignment. */
    void epoch(FakeGroup g) {
      GroupAssignment a = assignor.assign(g, g);
      plans++;
      String v = ShareInvariants.violations(g, a);
      if (!v.isEmpty()) {
        invalid++;
        if (firstViolation.isEmpty()) {
          firstViolation = v;
        }
        unsubscribed += v.contains(", unsubscribed;") ? 1 : 0;
        unassigned += v.contains(" has no member;") ? 1 : 0;
      }
      removed += ShareInvariants.removed(g, a);
      idle += ShareInvariants.idle(g, a);
      int spread = ShareInvariants.memberSpread(g, a);
      unbalanced += spread > 1 ? 1 : 0;
      worstSpread = Math.max(worstSpread, spread);
      g.current(a);
    }

    @Override
    public String toString() {
      return String.format("%s: %d plans, %d invalid (%d giving an unsubscribed topic, %d leaving a partition with no member),"
          + " %d pairs removed, %d idle subscriber-topics, %d plans with a topic's member counts more than 1 apart (worst %d)%s",
          name, plans, invalid, unsubscribed, unassigned, removed, idle, unbalanced, worstSpread,
          firstViolation.isEmpty() ? "" : "; first violation: " + firstViolation.substring(0, Math.min(200, firstViolation.length())));
    }
  }

  @Test
  void assigndAgainstSimpleAssignor() {
    AssigndShareAssignor plugin = AssigndShareAssignorTest.plugin(assignd.target());
    Side ours = new Side("assignd " + "sticky@1", plugin);
    Side simple = new Side("SimpleAssignor", new SimpleAssignor());
    for (int chain = 0; chain < CHAINS; chain++) {
      Random r = new Random(SEED * 1_000_003L + chain);
      List<Uuid> topics = new ArrayList<>();
      FakeGroup a = new FakeGroup();
      FakeGroup b = new FakeGroup();
      Consumer<Consumer<FakeGroup>> both = f -> {
        f.accept(a);
        f.accept(b);
      };
      for (int t = 0, n = 1 + r.nextInt(3); t < n; t++) {
        Uuid id = new Uuid(chain + 1, t + 1);
        int parts = 1 + r.nextInt(8);
        topics.add(id);
        both.accept(g -> g.topic(id, parts));
      }
      int next = 0;
      for (int m = 0, n = 1 + r.nextInt(8); m < n; m++, next++) {
        String id = "m" + next;
        Uuid[] sub = subscription(r, topics);
        both.accept(g -> g.member(id, sub));
      }
      for (int round = 0; round < ROUNDS; round++) {
        ours.epoch(a);
        simple.epoch(b);
        List<String> ids = new ArrayList<>(a.members.keySet());
        switch (r.nextInt(4)) {
          case 0 -> {
            String id = "m" + next++;
            Uuid[] sub = subscription(r, topics);
            both.accept(g -> g.member(id, sub));
          }
          case 1 -> {
            if (ids.size() > 1) {
              String id = ids.get(r.nextInt(ids.size()));
              both.accept(g -> g.remove(id));
            }
          }
          case 2 -> {
            String id = ids.get(r.nextInt(ids.size()));
            Uuid[] sub = subscription(r, topics);
            // The member keeps its current assignment: the coordinator
            // passes it as it was, stale topics included.
            both.accept(g -> {
              FakeGroup.Owned kept = g.current.get(id);
              g.member(id, sub);
              if (kept != null) {
                g.current.put(id, kept);
              }
            });
          }
          default -> {
            Uuid t = topics.get(r.nextInt(topics.size()));
            int more = 1 + r.nextInt(3);
            both.accept(g -> g.topic(t, g.topics.get(t) + more));
          }
        }
      }
    }
    System.out.println("share oracle, " + CHAINS + " chains of " + ROUNDS + " epochs (seed " + SEED + "):\n  " + ours + "\n  " + simple);
    assertEquals(0, ours.invalid, "assignd's plans break an invariant: " + ours.firstViolation);
    assertEquals(0, ours.idle, "assignd leaves a subscriber without a partition");
    assertEquals(0, ours.unbalanced, "assignd's member counts of a topic more than one apart");
    assertTrue(ours.removed <= simple.removed, "assignd removes more pairs than SimpleAssignor: " + ours + " vs " + simple);
    assertEquals(ours.plans, plugin.stats().getServed(), "every plan assignd's, none a fallback");
  }

  /** A random non-empty set of topics; half the time all of them, so that many groups are homogeneous. */
  private static Uuid[] subscription(Random r, List<Uuid> topics) {
    if (r.nextBoolean()) {
      return topics.toArray(new Uuid[0]);
    }
    Set<Uuid> s = new HashSet<>();
    s.add(topics.get(r.nextInt(topics.size())));
    for (Uuid t : topics) {
      if (r.nextInt(3) == 0) {
        s.add(t);
      }
    }
    return s.toArray(new Uuid[0]);
  }
}
