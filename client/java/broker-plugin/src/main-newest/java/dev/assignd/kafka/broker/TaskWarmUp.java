package dev.assignd.kafka.broker;

import assignd.v1.AssignmentServiceGrpc;
import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.AssignTasksResponse;
import assignd.v1.TaskAssignment.StreamsMemberAssignment;
import assignd.v1.TaskAssignment.StreamsTask;
import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Diagnosis;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.coordinator.group.api.streams.assignor.AssignmentConfigs;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;

/**
 * {@link WarmUp} for the task assignor: once per broker process and
 * target, from {@code configure()}, it runs every code path a task
 * assignment takes on a made-up group (building the request, the protobuf
 * and gRPC classes of AssignTasks, reading an answer, the fallback
 * {@code StickyTaskAssignor}), and makes the same gRPC health check, so
 * that the first streams group's call is not the one that pays for a
 * cold JVM and a new connection. Its own record of what was warmed: a
 * broker whose consumer plugin warmed the channel has not yet loaded the
 * streams paths.
 */
final class TaskWarmUp implements GroupSpec, TopologyDescriber {
  private static final Map<ChannelSettings, Diagnosis> DONE = new ConcurrentHashMap<>();
  private static final AssignmentConfigs CONFIGS = new Configs(1, List.of());

  private record Configs(int numStandbyReplicas, List<String> rackAwareAssignmentTags) implements AssignmentConfigs {}

  private record Metadata(Optional<String> instanceId, Optional<String> rackId, String processId, Map<String, String> clientTags)
      implements MemberAssignmentMetadata {}

  private record State(Map<String, Set<Integer>> activeTasks, Map<String, Set<Integer>> standbyTasks,
      Map<String, Set<Integer>> warmupTasks, Map<String, Map<Integer, Long>> taskOffsets,
      Map<String, Map<Integer, Long>> taskEndOffsets) implements MemberAssignmentState {}

  private TaskWarmUp() {}

  /** Warms this process for c, once per target; returns what the health check found wrong, or null. */
  static Diagnosis run(TaskAssignorConfig c, TaskAssignor fallback) {
    return WarmUp.once(DONE, c.channel, () -> {
      TaskWarmUp g = new TaskWarmUp();
      TaskRequests.Built built = TaskRequests.build(c, g, g);
      AssignTasksRequest req = ProtoUtils.marshaller(AssignTasksRequest.getDefaultInstance())
          .parse(ProtoUtils.marshaller(AssignTasksRequest.getDefaultInstance()).stream(built.request()));
      AssignTasksResponse resp = AssignTasksResponse.newBuilder()
          .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m1")
              .addActiveTasks(task(0)).addStandbyTasks(task(1)))
          .addAssignments(StreamsMemberAssignment.newBuilder().setMemberId("m2")
              .addActiveTasks(task(1)).addStandbyTasks(task(0)))
          .build();
      resp = ProtoUtils.marshaller(AssignTasksResponse.getDefaultInstance())
          .parse(ProtoUtils.marshaller(AssignTasksResponse.getDefaultInstance()).stream(resp));
      TaskRequests.toAssignment(new TaskRequests.Built(req, built.processes(), built.partitions(), built.stateful()), resp);
      TaskRequests.encode(fallback.assign(g, g));
      AssignmentServiceGrpc.getAssignTasksMethod();
      Diagnosis.of(Status.UNAVAILABLE.asRuntimeException(), c.deadlineKey, c.deadlineMs);
      return WarmUp.check(c.channel);
    });
  }

  private static StreamsTask task(int p) {
    return StreamsTask.newBuilder().setSubtopologyId("0").setPartition(p).build();
  }

  /** Forgets which targets were warmed, for tests. */
  static void reset() {
    DONE.clear();
  }

  // Two members of two processes; one stateful subtopology of two tasks,
  // one standby each.

  @Override
  public Collection<String> memberIds() {
    return List.of("m1", "m2");
  }

  @Override
  public MemberAssignmentMetadata memberMetadata(String memberId) {
    return new Metadata(Optional.empty(), Optional.empty(), "p-" + memberId, Map.of());
  }

  @Override
  public MemberAssignmentState memberAssignmentState(String memberId) {
    return new State(Map.of(), Map.of(), Map.of(), Map.of(), Map.of());
  }

  @Override
  public AssignmentConfigs configs() {
    return CONFIGS;
  }

  @Override
  public List<String> subtopologies() {
    return List.of("0");
  }

  @Override
  public int maxNumInputPartitions(String subtopologyId) {
    return 2;
  }

  @Override
  public boolean isStateful(String subtopologyId) {
    return true;
  }
}
