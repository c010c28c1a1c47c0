package dev.assignd.kafka.broker;

import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.AssignTasksResponse;
import assignd.v1.TaskAssignment.GroupType;
import assignd.v1.TaskAssignment.StreamsMember;
import assignd.v1.TaskAssignment.StreamsMemberAssignment;
import assignd.v1.TaskAssignment.StreamsTask;
import assignd.v1.TaskAssignment.Subtopology;
import assignd.v1.TaskAssignment.TaskLag;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;

/**
 * Translates what the group coordinator hands a KIP-1357 task assignor
 * (a streams group's {@link GroupSpec} and {@link TopologyDescriber}) into
 * an {@link AssignTasksRequest}, and assignd's answer back into the
 * broker's {@link GroupAssignment}. docs/streams-share.md lists what the
 * broker fills in.
 *
 * <p>Two things the broker does not give an assignor are set here: the
 * group's label (the plugin's) and the acceptable recovery lag (the
 * broker's own setting, from configure). No warm-ups are asked for: the
 * broker's answer has no place for them, and the broker places warm-ups
 * itself on any assignor's target (its AssignmentRefiner, when
 * {@code num.warmup.replicas} is not 0), so actives move at once.
 */
final class TaskRequests {
  private TaskRequests() {}

  /** The request and what is needed to check its answer: each member's process, each subtopology's tasks. */
  record Built(AssignTasksRequest request, Map<String, String> processes, Map<String, Integer> partitions,
      Set<String> stateful) implements PluginCall.Built {}

  /**
   * Builds the request: members sorted by id, subtopologies by id, tasks by
   * subtopology then partition, so that the same group gives the same
   * bytes whatever order the broker's collections iterate in.
   */
  static Built build(TaskAssignorConfig c, GroupSpec spec, TopologyDescriber topology) {
    AssignTasksRequest.Builder req = AssignTasksRequest.newBuilder()
        .setGroupId(c.groupId)
        .setGroupType(GroupType.GROUP_TYPE_STREAMS)
        .setAssignor(c.assignor)
        .setNumStandbyReplicas(spec.configs().numStandbyReplicas())
        .addAllRackAwareAssignmentTags(spec.configs().rackAwareAssignmentTags())
        // KIP-1357: the broker's MemberAssignment has actives and standbys
        // only; its refiner adds the warm-ups.
        .setNumWarmupReplicas(0)
        .setAcceptableRecoveryLag(c.acceptableRecoveryLag);
    Map<String, Integer> partitions = new HashMap<>();
    Set<String> stateful = new HashSet<>();
    for (String id : new TreeSet<>(topology.subtopologies())) {
      int n = topology.maxNumInputPartitions(id);
      boolean s = topology.isStateful(id);
      partitions.put(id, n);
      if (s) {
        stateful.add(id);
      }
      req.addSubtopologies(Subtopology.newBuilder().setId(id).setPartitionCount(n).setStateful(s));
    }
    List<String> ids = new ArrayList<>(spec.memberIds());
    Collections.sort(ids);
    Map<String, String> processes = new HashMap<>(ids.size() * 2);
    for (String id : ids) {
      MemberAssignmentMetadata meta = spec.memberMetadata(id);
      MemberAssignmentState state = spec.memberAssignmentState(id);
      processes.put(id, meta.processId());
      StreamsMember.Builder m = StreamsMember.newBuilder().setMemberId(id).setProcessId(meta.processId())
          .putAllClientTags(meta.clientTags())
          .addAllActiveTasks(tasks(state.activeTasks()))
          .addAllStandbyTasks(tasks(state.standbyTasks()))
          .addAllWarmupTasks(tasks(state.warmupTasks()))
          .addAllLags(lags(state));
      meta.instanceId().ifPresent(m::setInstanceId);
      meta.rackId().ifPresent(m::setRackId);
      req.addMembers(m);
    }
    return new Built(req.build(), processes, partitions, stateful);
  }

  /** Tasks sorted by subtopology, then partition. */
  static List<StreamsTask> tasks(Map<String, Set<Integer>> bySubtopology) {
    List<StreamsTask> out = new ArrayList<>();
    new TreeMap<>(bySubtopology).forEach((s, ps) -> {
      for (int p : new TreeSet<>(ps)) {
        out.add(StreamsTask.newBuilder().setSubtopologyId(s).setPartition(p).build());
      }
    });
    return out;
  }

  /**
   * The lags the broker's offsets tell: a task's end offset less the
   * member's offset, where both are known and the end is a real one. The
   * broker reports offsets only for state a process keeps without running
   * it, and end offsets that may be missing, {@code Long.MAX_VALUE} or
   * below the offset (docs/streams-share.md); those tasks' lags stay
   * unknown rather than guessed.
   */
  static List<TaskLag> lags(MemberAssignmentState state) {
    List<TaskLag> out = new ArrayList<>();
    new TreeMap<>(state.taskOffsets()).forEach((s, offsets) -> {
      Map<Integer, Long> ends = state.taskEndOffsets().getOrDefault(s, Map.of());
      new TreeMap<>(offsets).forEach((p, offset) -> {
        Long end = ends.get(p);
        if (offset != null && offset >= 0 && end != null && end != Long.MAX_VALUE && end >= offset) {
          out.add(TaskLag.newBuilder().setTask(StreamsTask.newBuilder().setSubtopologyId(s).setPartition(p))
              .setLag(end - offset).build());
        }
      });
    });
    return out;
  }

  /**
   * Reads assignd's answer: every member of the request exactly once, every
   * task of the topology active on exactly one member, standbys only of
   * stateful tasks, never two replicas of a task on one process (its
   * threads share one state directory). Warm-ups in the answer are
   * dropped: the broker's answer has no place for them, and the request
   * asks for none.
   *
   * @throws IllegalStateException naming what is wrong, when the answer is
   *     not a valid assignment of this group
   */
  static GroupAssignment toAssignment(Built b, AssignTasksResponse resp) {
    Map<String, MemberAssignment> out = new HashMap<>(b.processes.size() * 2);
    Map<String, String> activeOn = new HashMap<>();
    Set<String> onProcess = new HashSet<>();
    for (StreamsMemberAssignment ma : resp.getAssignmentsList()) {
      String id = ma.getMemberId();
      String process = b.processes.get(id);
      if (process == null) {
        throw new IllegalStateException("assignd answered for member " + id + ", which is not in the group");
      }
      Map<String, Set<Integer>> active = read(b, id, "active", ma.getActiveTasksList(), false);
      Map<String, Set<Integer>> standby = read(b, id, "standby", ma.getStandbyTasksList(), true);
      active.forEach((s, ps) -> ps.forEach(p -> {
        String other = activeOn.put(s + "_" + p, id);
        if (other != null) {
          throw new IllegalStateException("assignd gave active task " + s + "_" + p + " to members " + other + " and " + id);
        }
      }));
      for (Map<String, Set<Integer>> kind : List.of(active, standby)) {
        kind.forEach((s, ps) -> ps.forEach(p -> {
          if (!onProcess.add(process + "\0" + s + "_" + p)) {
            throw new IllegalStateException("assignd gave task " + s + "_" + p + " twice to process " + process
                + " (member " + id + ")");
          }
        }));
      }
      if (out.put(id, new MemberAssignment(freeze(active), freeze(standby))) != null) {
        throw new IllegalStateException("assignd answered twice for member " + id);
      }
    }
    for (String id : b.processes.keySet()) {
      if (!out.containsKey(id)) {
        throw new IllegalStateException("assignd's answer misses member " + id);
      }
    }
    for (Map.Entry<String, Integer> e : new TreeMap<>(b.partitions).entrySet()) {
      for (int p = 0; p < e.getValue(); p++) {
        if (!activeOn.containsKey(e.getKey() + "_" + p)) {
          throw new IllegalStateException("assignd's answer leaves task " + e.getKey() + "_" + p + " without an active member");
        }
      }
    }
    return new GroupAssignment(out);
  }

  private static Map<String, Set<Integer>> read(Built b, String member, String kind, List<StreamsTask> tasks, boolean standby) {
    Map<String, Set<Integer>> out = new HashMap<>();
    for (StreamsTask t : tasks) {
      Integer n = b.partitions.get(t.getSubtopologyId());
      if (n == null) {
        throw new IllegalStateException("assignd gave member " + member + " " + kind + " task " + t.getSubtopologyId() + "_"
            + t.getPartition() + " of a subtopology the topology does not have");
      }
      if (t.getPartition() < 0 || t.getPartition() >= n) {
        throw new IllegalStateException("assignd gave member " + member + " " + kind + " task " + t.getSubtopologyId() + "_"
            + t.getPartition() + ", whose subtopology has " + n + " tasks");
      }
      if (standby && !b.stateful.contains(t.getSubtopologyId())) {
        throw new IllegalStateException("assignd gave member " + member + " a standby of task " + t.getSubtopologyId() + "_"
            + t.getPartition() + ", which is stateless");
      }
      out.computeIfAbsent(t.getSubtopologyId(), k -> new HashSet<>()).add(t.getPartition());
    }
    return out;
  }

  private static Map<String, Set<Integer>> freeze(Map<String, Set<Integer>> m) {
    Map<String, Set<Integer>> out = new HashMap<>(m.size() * 2);
    m.forEach((k, v) -> out.put(k, Collections.unmodifiableSet(v)));
    return Collections.unmodifiableMap(out);
  }

  /** What the plugin returned to the coordinator, as an answer of assignd's form (for the record file). */
  static AssignTasksResponse encode(GroupAssignment a) {
    AssignTasksResponse.Builder b = AssignTasksResponse.newBuilder().setGroupType(GroupType.GROUP_TYPE_STREAMS);
    new TreeMap<>(a.members()).forEach((id, m) -> b.addAssignments(StreamsMemberAssignment.newBuilder().setMemberId(id)
        .addAllActiveTasks(tasks(m.activeTasks())).addAllStandbyTasks(tasks(m.standbyTasks()))));
    return b.build();
  }
}
