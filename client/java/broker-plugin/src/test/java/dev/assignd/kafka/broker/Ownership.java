package dev.assignd.kafka.broker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Who owns each partition, from every member's rebalance callbacks in the
 * order they ran (one JVM, one lock). Under KIP-848 the broker gives a
 * partition to its new owner only after the old owner acknowledged the
 * revocation, which it does after its callback returned: a partition
 * assigned while another member still holds it is a double owner.
 */
final class Ownership {
  private final Map<TopicPartition, String> owner = new HashMap<>();
  private final List<String> violations = new ArrayList<>();

  synchronized void assigned(String member, Iterable<TopicPartition> ps) {
    for (TopicPartition p : ps) {
      String prev = owner.put(p, member);
      if (prev != null && !prev.equals(member)) {
        violations.add(p + " assigned to " + member + " while " + prev + " owns it");
      }
    }
  }

  synchronized void revoked(String member, Iterable<TopicPartition> ps) {
    for (TopicPartition p : ps) {
      owner.remove(p, member);
    }
  }

  synchronized List<String> violations() {
    return new ArrayList<>(violations);
  }
}
