package dev.assignd.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * The shared timeline of every member's rebalance callbacks, Java's and the
 * franz-go member's, in the order they happened (Java callbacks are recorded
 * from inside the callback; the Go member's lines as soon as they are read,
 * which is well before the partition can move on: that takes another
 * JoinGroup and SyncGroup round). Replaying it gives each partition's owner
 * at every moment, and flags a partition handed to one member while another
 * still owns it.
 */
final class Timeline {
  private final Map<TopicPartition, String> owner = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private final List<String> events = new ArrayList<>();
  private final Set<String> consumed = new java.util.HashSet<>();
  private long lastChange = System.nanoTime();

  synchronized void assigned(String member, Collection<TopicPartition> tps) {
    if (tps.isEmpty()) {
      return;
    }
    events.add(member + " assigned " + new TreeSet<>(names(tps)));
    for (TopicPartition tp : tps) {
      String prev = owner.put(tp, member);
      if (prev != null && !prev.equals(member)) {
        violations.add(tp + " assigned to " + member + " while " + prev + " still owns it");
      }
    }
    lastChange = System.nanoTime();
  }

  synchronized void revoked(String member, Collection<TopicPartition> tps, String how) {
    if (tps.isEmpty()) {
      return;
    }
    events.add(member + " " + how + " " + new TreeSet<>(names(tps)));
    for (TopicPartition tp : tps) {
      owner.remove(tp, member);
    }
    lastChange = System.nanoTime();
  }

  /** The member stopped consuming (closed or killed): it owns nothing from now on. */
  synchronized void stopped(String member) {
    events.add(member + " stopped");
    owner.values().removeIf(member::equals);
    lastChange = System.nanoTime();
  }

  synchronized void consumed(String topic, int partition, long offset) {
    consumed.add(topic + "/" + partition + "/" + offset);
  }

  synchronized boolean wasConsumed(String topic, int partition, long offset) {
    return consumed.contains(topic + "/" + partition + "/" + offset);
  }

  /** Current owners: member → its partitions. */
  synchronized Map<String, Set<String>> owners() {
    Map<String, Set<String>> out = new TreeMap<>();
    owner.forEach((tp, m) -> out.computeIfAbsent(m, k -> new TreeSet<>()).add(tp.toString()));
    return out;
  }

  synchronized long quietMillis() {
    return (System.nanoTime() - lastChange) / 1_000_000;
  }

  synchronized List<String> violations() {
    return new ArrayList<>(violations);
  }

  synchronized String dump() {
    return String.join("\n", events);
  }

  private static List<String> names(Collection<TopicPartition> tps) {
    List<String> l = new ArrayList<>();
    tps.forEach(tp -> l.add(tp.toString()));
    return l;
  }
}
