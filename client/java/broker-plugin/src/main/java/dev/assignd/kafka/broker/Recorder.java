package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import com.google.protobuf.MessageLite;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.TopicPartitions;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends one line per assignment to {@code assignd.record.file}, for
 * debugging and for the real-broker tests: {@code instance outcome nanos
 * thread request response applied gcnanos}. The time the coordinator's
 * thread was held by the call, the thread that called the plugin, then
 * three base64 protobufs ({@code -} when there is none): the request sent
 * to assignd, its answer, and what the plugin returned to the coordinator
 * (written as an AssignResponse, topics named by topic id), from assignd
 * or from the fallback. The outcome is {@code SERVED} or the fallback
 * reason; last, how much of the call the JVM spent stopped in garbage
 * collection ({@link JvmPauses}). Off by default.
 *
 * <p>The line is encoded and appended on the plugin's I/O thread
 * ({@link OffThread}). The coordinator's thread copies what it returns
 * into a protobuf (the coordinator owns that assignment once returned) and
 * hands it over with the request and the answer, which are immutable.
 */
final class Recorder {
  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);
  private final Path file;
  private volatile boolean broken;

  Recorder(String file) {
    this.file = Path.of(file);
  }

  /** Hands one call over to be written; the assignment is copied here, the rest is done on the plugin's I/O thread. */
  void record(String instance, String outcome, long nanos, long gcNanos, AssignRequest req, AssignResponse resp,
      GroupAssignment applied) {
    if (broken) {
      return;
    }
    record(instance, outcome, nanos, gcNanos, req, resp, encode(applied));
  }

  /**
   * One line of any plugin's: its request, answer and applied assignment as
   * the messages of its RPC, which are immutable. On the calling thread it
   * costs a queue insertion.
   */
  void record(String instance, String outcome, long nanos, long gcNanos, MessageLite req, MessageLite resp, MessageLite applied) {
    if (broken) {
      return;
    }
    String thread = Thread.currentThread().getName();
    OffThread.run(() -> write(instance, outcome, nanos, thread, gcNanos, req, resp, applied));
  }

  private void write(String instance, String outcome, long nanos, String thread, long gcNanos, MessageLite req,
      MessageLite resp, MessageLite applied) {
    if (broken) {
      return;
    }
    Base64.Encoder b64 = Base64.getEncoder();
    String line = instance + " " + outcome + " " + nanos + " " + thread.replace(' ', '_') + " "
        + (req == null ? "-" : b64.encodeToString(req.toByteArray())) + " "
        + (resp == null ? "-" : b64.encodeToString(resp.toByteArray())) + " "
        + b64.encodeToString(applied.toByteArray()) + " " + gcNanos + "\n";
    // One thread writes every line: no lock needed.
    try {
      Files.writeString(file, line, StandardCharsets.US_ASCII, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      broken = true;
      LOG.error("assignd plugin: cannot write {} ({}): {}; recording stops", file, PluginConfig.RECORD_FILE, e.toString());
    }
  }

  static AssignResponse encode(GroupAssignment a) {
    AssignResponse.Builder b = AssignResponse.newBuilder().setTargetAssignment(true);
    new TreeMap<>(a.members()).forEach((id, m) -> {
      MemberAssignment.Builder ma = MemberAssignment.newBuilder().setMemberId(id);
      Map<String, Set<Integer>> byName = new TreeMap<>();
      for (Map.Entry<Uuid, Set<Integer>> e : m.partitions().entrySet()) {
        byName.put(e.getKey().toString(), new TreeSet<>(e.getValue()));
      }
      byName.forEach((t, ps) -> ma.addPartitions(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps)));
      b.addAssignments(ma);
    });
    return b.build();
  }
}
