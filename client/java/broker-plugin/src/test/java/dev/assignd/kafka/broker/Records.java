package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.TopicPartitions;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The plugin's record file (assignd.record.file), read back. */
final class Records {
  /** One assignment the plugin made. */
  record Entry(String instance, String outcome, long nanos, String thread, AssignRequest request, AssignResponse response,
      AssignResponse applied, long gcNanos) {
    /**
     * What the plugin held the coordinator's thread: the call less the
     * JVM's garbage collections during it, which stop every thread alike.
     */
    long heldNanos() {
      return nanos - gcNanos;
    }

    boolean served() {
      return outcome.equals("SERVED");
    }

    /** The topic ids of the assignment (the group's topics, when anything was assigned). */
    Set<String> topics() {
      Set<String> out = new HashSet<>();
      for (MemberAssignment m : applied.getAssignmentsList()) {
        for (TopicPartitions tp : m.getPartitionsList()) {
          out.add(tp.getTopic());
        }
      }
      return out;
    }

    /** member id → "topicId-partition" of what the plugin returned to the coordinator. */
    Map<String, Set<String>> byMember() {
      Map<String, Set<String>> out = new TreeMap<>();
      for (MemberAssignment m : applied.getAssignmentsList()) {
        Set<String> ps = new TreeSet<>();
        for (TopicPartitions tp : m.getPartitionsList()) {
          for (int p : tp.getPartitionsList()) {
            ps.add(tp.getTopic() + "-" + p);
          }
        }
        out.put(m.getMemberId(), ps);
      }
      return out;
    }
  }

  static List<Entry> read(Path file) throws IOException {
    return lines(file, f -> new Entry(f[0], f[1], Long.parseLong(f[2]), f[3], message(f[4], AssignRequest.parser()),
        message(f[5], AssignResponse.parser()), message(f[6], AssignResponse.parser()), Long.parseLong(f[7])));
  }

  /** One line's fields made into an entry; a line being written may not parse. */
  interface Line<E> {
    E parse(String[] fields) throws InvalidProtocolBufferException;
  }

  /**
   * The whole lines of any plugin's record file ({@link Recorder}:
   * instance outcome nanos thread request response applied gcnanos), as
   * entries; none when there is no file yet.
   */
  static <E> List<E> lines(Path file, Line<E> entry) throws IOException {
    List<E> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split(" ");
      if (f.length != 8) {
        continue; // being written
      }
      try {
        out.add(entry.parse(f));
      } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
        // a line being written
      }
    }
    return out;
  }

  /** A field of the line: a base64 protobuf, or null for "-". */
  static <T> T message(String field, Parser<T> parser) throws InvalidProtocolBufferException {
    return field.equals("-") ? null : parser.parseFrom(Base64.getDecoder().decode(field));
  }

  /**
   * The entries once there are at least n, waiting up to 10 s: the plugin
   * writes its record a few milliseconds after the call, off the
   * coordinator's thread.
   */
  static List<Entry> atLeast(Path file, int n) throws IOException, InterruptedException {
    long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    List<Entry> got = read(file);
    while (got.size() < n && System.nanoTime() < until) {
      Thread.sleep(20);
      got = read(file);
    }
    return got;
  }

  /** The last entry whose assignment covers exactly these topic ids, or null. */
  static Entry last(List<Entry> entries, Set<String> topicIds) {
    for (int i = entries.size() - 1; i >= 0; i--) {
      if (entries.get(i).topics().equals(topicIds)) {
        return entries.get(i);
      }
    }
    return null;
  }
}
