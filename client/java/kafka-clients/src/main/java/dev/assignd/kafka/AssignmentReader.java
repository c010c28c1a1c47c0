package dev.assignd.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the assigned partitions of ConsumerProtocolAssignment bytes,
 * versions 0 to 3 (all one layout: a version, then topics with their
 * partitions, then user data, which is left unread). Used here rather than
 * kafka-clients' {@code ConsumerProtocol.deserializeAssignment}, whose topic
 * collection rehashes itself as it grows: a member of 500 topics took it
 * milliseconds, a 2,000-member group's answer seconds. One reader serves
 * one answer: members mostly have the same topics in the same order, so a
 * topic name is decoded once and its String shared.
 * {@code AssignRequestsTest} checks it reads what kafka-clients writes.
 */
final class AssignmentReader {
  private byte[][] lastBytes = new byte[0][];
  private String[] lastNames = new String[0];

  /** @throws IllegalArgumentException on bytes that are not such an assignment, saying what is wrong */
  List<TopicPartition> partitions(byte[] a) {
    int off = 0;
    short version = (short) u16(a, off);
    off += 2;
    if (version < 0 || version > 3) {
      throw new IllegalArgumentException("version " + version + ", not 0 to 3");
    }
    int topics = i32(a, off);
    off += 4;
    if (topics < 0 || topics > (a.length - off) / 6) {
      throw new IllegalArgumentException("topic count " + topics);
    }
    if (topics > lastNames.length) {
      lastNames = Arrays.copyOf(lastNames, topics);
      lastBytes = Arrays.copyOf(lastBytes, topics);
    }
    List<TopicPartition> out = new ArrayList<>();
    for (int t = 0; t < topics; t++) {
      int len = u16(a, off);
      off += 2;
      if (len > a.length - off - 4) {
        throw new IllegalArgumentException("topic name length " + len);
      }
      String topic = name(t, a, off, len);
      off += len;
      int n = i32(a, off);
      off += 4;
      if (n < 0 || n > (a.length - off) / 4) {
        throw new IllegalArgumentException("partition count " + n + " of topic " + topic);
      }
      for (int i = 0; i < n; i++, off += 4) {
        out.add(new TopicPartition(topic, i32(a, off)));
      }
    }
    return out;
  }

  /** The name at a[off, off+len), the String of the previous member's t-th topic when it is the same. */
  private String name(int t, byte[] a, int off, int len) {
    byte[] last = lastBytes[t];
    if (last != null && Arrays.equals(last, 0, last.length, a, off, off + len)) {
      return lastNames[t];
    }
    lastBytes[t] = Arrays.copyOfRange(a, off, off + len);
    return lastNames[t] = new String(a, off, len, StandardCharsets.UTF_8);
  }

  private static int u16(byte[] a, int off) {
    check(a, off, 2);
    return (a[off] & 0xff) << 8 | (a[off + 1] & 0xff);
  }

  private static int i32(byte[] a, int off) {
    check(a, off, 4);
    return (a[off] & 0xff) << 24 | (a[off + 1] & 0xff) << 16 | (a[off + 2] & 0xff) << 8 | (a[off + 3] & 0xff);
  }

  private static void check(byte[] a, int off, int n) {
    if (off + n > a.length) {
      throw new IllegalArgumentException("truncated at byte " + off);
    }
  }
}
