package dev.assignd.kafka.broker;

import assignd.v1.TaskAssignment.AssignTasksResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.slf4j.LoggerFactory;

/**
 * A KIP-1357 task assignor for Kafka Streams groups (KIP-1071) that takes
 * each group's tasks from assignd (AssignTasks), and computes them
 * in-process with the broker's built-in {@link StickyTaskAssignor} when
 * assignd does not answer in time or at all. List its class in the
 * broker's {@code group.streams.assignors}; a group uses it when it is
 * the first entry, or when the group config {@code streams.assignor.name}
 * names it ({@code assignd.streams.name}, default {@code assignd}).
 * docs/streams-share.md.
 *
 * <p>It is the consumer plugin ({@link AssigndAssignor}) for another kind
 * of group: the coordinator calls {@link #assign} on its event-processor
 * thread once per group epoch, so every call is bounded by
 * {@code assignd.streams.deadline.ms} (default {@code assignd.deadline.ms},
 * 500 ms), and after a call that timed out or found assignd unavailable or
 * overloaded it does not call again for {@code assignd.streams.backoff.ms}
 * (default {@code assignd.backoff.ms}, 5 s). It throws
 * {@link TaskAssignorException} only when the fallback itself fails; every
 * failure of assignd is counted ({@link PluginStats}, type
 * {@code AssigndTaskAssignor}) and logged off the coordinator's thread, a
 * misconfiguration once at ERROR: the life of a call is
 * {@link PluginCall}'s, which this class gives the AssignTasks RPC and the
 * fallback.
 */
public class AssigndTaskAssignor extends PluginAssignor<TaskAssignorConfig, TaskRequests.Built, AssignTasksResponse, GroupAssignment>
    implements TaskAssignor {
  /** Misconfigurations logged at ERROR so far, for tests. */
  static final AtomicLong MISCONFIGURATIONS_LOGGED = new AtomicLong();
  private static final PluginCall.Kind KIND = new PluginCall.Kind(GroupType.STREAMS, LoggerFactory.getLogger(AssigndTaskAssignor.class),
      "assignd task assignor", "task assignment", TaskAssignorException.class, TaskAssignorException::new, MISCONFIGURATIONS_LOGGED);
  private static final PluginCall.Rpc<TaskRequests.Built, AssignTasksResponse, GroupAssignment> ASSIGN_TASKS = new PluginCall.Rpc<>(
      (stub, b) -> stub.assignTasks(b.request()), TaskRequests::toAssignment, TaskRequests::encode,
      r -> r.getAssignor() + ", " + r.getMoveCount() + " moves", AssignTasksResponse::getWarningsList,
      new GroupAssignment(Map.of()));
  /** The built-in keeps no state between calls. */
  private static final TaskAssignor STICKY = new StickyTaskAssignor();

  public AssigndTaskAssignor() {
    super(KIND, ASSIGN_TASKS, TaskAssignorConfig::from, c -> STICKY.name(), c -> TaskWarmUp.run(c, STICKY));
  }

  @Override
  public GroupAssignment assign(GroupSpec spec, TopologyDescriber topology) throws TaskAssignorException {
    return call.assign(spec.memberIds().size(), c -> TaskRequests.build(c, spec, topology), c -> STICKY.assign(spec, topology));
  }
}
