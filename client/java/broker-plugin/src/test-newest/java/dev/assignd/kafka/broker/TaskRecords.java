package dev.assignd.kafka.broker;

import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.AssignTasksResponse;
import assignd.v1.TaskAssignment.StreamsMember;
import assignd.v1.TaskAssignment.StreamsMemberAssignment;
import assignd.v1.TaskAssignment.StreamsTask;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The task assignor's record file (assignd.streams.record.file), read back. */
final class TaskRecords {
  private TaskRecords() {}

  /** One task assignment the plugin made: its request (null when none was built), assignd's answer and what it returned. */
  record Entry(String outcome, long nanos, String thread, AssignTasksRequest request, AssignTasksResponse response,
      AssignTasksResponse applied, long gcNanos) {
    boolean served() {
      return outcome.equals("SERVED");
    }

    /** What the plugin held the coordinator's thread, less the JVM's collections. */
    long heldNanos() {
      return nanos - gcNanos;
    }

    int members() {
      return applied.getAssignmentsCount();
    }

    /** Active tasks ("subtopology_partition") of each member. */
    Map<String, Set<String>> actives() {
      Map<String, Set<String>> out = new TreeMap<>();
      for (StreamsMemberAssignment m : applied.getAssignmentsList()) {
        out.put(m.getMemberId(), names(m.getActiveTasksList()));
      }
      return out;
    }

    /** Standby tasks of each member. */
    Map<String, Set<String>> standbys() {
      Map<String, Set<String>> out = new TreeMap<>();
      for (StreamsMemberAssignment m : applied.getAssignmentsList()) {
        out.put(m.getMemberId(), names(m.getStandbyTasksList()));
      }
      return out;
    }

    /** Each member's process, from the request (null when none was built). */
    Map<String, String> processes() {
      Map<String, String> out = new TreeMap<>();
      if (request != null) {
        for (StreamsMember m : request.getMembersList()) {
          out.put(m.getMemberId(), m.getProcessId());
        }
      }
      return out;
    }
  }

  static Set<String> names(List<StreamsTask> tasks) {
    Set<String> out = new TreeSet<>();
    for (StreamsTask t : tasks) {
      out.add(t.getSubtopologyId() + "_" + t.getPartition());
    }
    return out;
  }

  static List<Entry> read(Path file) throws IOException {
    return Records.lines(file, f -> new Entry(f[1], Long.parseLong(f[2]), f[3], Records.message(f[4], AssignTasksRequest.parser()),
        Records.message(f[5], AssignTasksResponse.parser()), Records.message(f[6], AssignTasksResponse.parser()),
        Long.parseLong(f[7])));
  }
}
