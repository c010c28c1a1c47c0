package dev.assignd.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes a {@link Subscription} as ConsumerProtocolSubscription version 3,
 * the bytes kafka-clients' {@code ConsumerProtocol.serializeSubscription}
 * writes (topics sorted, owned partitions sorted and grouped by topic), so
 * that a Java member's metadata reaches assignd as the member sent it.
 * Written here because kafka-clients' writer builds each member's owned
 * topics in a collection that rehashes itself as it grows; this one writes
 * straight into the buffer and encodes each topic name once per request,
 * however many members name it. {@code SubscriptionWriterTest} checks the
 * bytes are kafka-clients' own.
 */
final class SubscriptionWriter {
  private static final short VERSION = 3;
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final Map<String, byte[]> names = new HashMap<>();

  /** The version-prefixed ConsumerProtocolSubscription bytes of s. */
  byte[] write(Subscription s) {
    List<String> topics = s.topics();
    if (!sorted(topics, Comparator.naturalOrder())) {
      topics = new ArrayList<>(topics);
      topics.sort(null);
    }
    List<TopicPartition> owned = s.ownedPartitions();
    if (!sorted(owned, ORDER)) {
      owned = new ArrayList<>(owned);
      owned.sort(ORDER);
    }
    ByteBuffer ud = s.userData() == null ? null : s.userData().duplicate();
    byte[] rack = s.rackId().map(r -> r.getBytes(StandardCharsets.UTF_8)).orElse(null);

    int size = 2 + 4 + 4 + (ud == null ? 0 : ud.remaining()) + 4 + 4 + 2 + (rack == null ? 0 : rack.length);
    for (String t : topics) {
      size += 2 + name(t).length;
    }
    String prev = null;
    for (TopicPartition tp : owned) {
      if (!tp.topic().equals(prev)) {
        prev = tp.topic();
        size += 2 + name(prev).length + 4;
      }
      size += 4;
    }

    ByteBuffer b = ByteBuffer.allocate(size);
    b.putShort(VERSION);
    b.putInt(topics.size());
    for (String t : topics) {
      putName(b, t);
    }
    if (ud == null) {
      b.putInt(-1);
    } else {
      b.putInt(ud.remaining()).put(ud);
    }
    b.putInt(groups(owned));
    for (int i = 0; i < owned.size(); ) {
      String t = owned.get(i).topic();
      int j = i;
      while (j < owned.size() && owned.get(j).topic().equals(t)) {
        j++;
      }
      putName(b, t);
      b.putInt(j - i);
      for (; i < j; i++) {
        b.putInt(owned.get(i).partition());
      }
    }
    b.putInt(s.generationId().orElse(-1));
    if (rack == null) {
      b.putShort((short) -1);
    } else {
      b.putShort((short) rack.length).put(rack);
    }
    return b.array();
  }

  private byte[] name(String t) {
    byte[] n = names.computeIfAbsent(t, k -> k.getBytes(StandardCharsets.UTF_8));
    if (n.length > Short.MAX_VALUE) {
      throw new IllegalArgumentException("topic name of " + n.length + " bytes: " + t.substring(0, 40) + "...");
    }
    return n;
  }

  private void putName(ByteBuffer b, String t) {
    byte[] n = name(t);
    b.putShort((short) n.length).put(n);
  }

  /** Whether l is in order already, as a subscription kafka-clients decoded is: then it is not copied. */
  private static <T> boolean sorted(List<T> l, Comparator<? super T> order) {
    for (int i = 1; i < l.size(); i++) {
      if (order.compare(l.get(i - 1), l.get(i)) > 0) {
        return false;
      }
    }
    return true;
  }

  private static int groups(List<TopicPartition> owned) {
    int n = 0;
    String prev = null;
    for (TopicPartition tp : owned) {
      if (!tp.topic().equals(prev)) {
        prev = tp.topic();
        n++;
      }
    }
    return n;
  }
}
