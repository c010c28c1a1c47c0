package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.slf4j.LoggerFactory;

/**
 * A KIP-848 server-side assignor that takes each consumer group's target
 * assignment from assignd, and computes it in-process with the broker's
 * built-in {@code uniform} (or {@code range}) when assignd does not answer
 * in time or at all. List it in the broker's {@code group.consumer.assignors}
 * and select it from a consumer with {@code group.remote.assignor=assignd}
 * (its default name, {@code assignd.assignor.1.name}). docs/kip848-plugin.md.
 *
 * <p>The coordinator calls {@link #assign} on its event-processor thread
 * (one of {@code group.coordinator.threads}) while it handles the heartbeat
 * that changed the group, and every group whose offsets partition that
 * thread serves waits meanwhile. So every call is bounded by
 * {@code assignd.deadline.ms} (default 500 ms), and after a call that timed
 * out or found assignd unavailable or overloaded the plugin does not call
 * again for {@code assignd.backoff.ms} (default 5 s): a dead or hung assignd
 * costs one deadline per backoff, not one per heartbeat.
 *
 * <p>After its wait ends, at the deadline at the latest, the coordinator's
 * thread does only bounded in-memory work: it cancels the call (an
 * interrupt of the call's thread), classifies the failure, runs the
 * fallback on the same input and counts the outcome. Every log line and
 * the record file are handed to the plugin's I/O thread ({@link OffThread}),
 * so that a slow disk never holds a coordinator thread. That life of a
 * call is {@link PluginCall}'s, shared with the Streams and share
 * assignors; this class gives it the Assign RPC and the fallback.
 *
 * <p>It throws {@link PartitionAssignorException} only when the fallback
 * itself fails; every failure of assignd is counted ({@link PluginStats})
 * and logged, a misconfiguration once at ERROR.
 *
 * <p>Several instances: the coordinator makes one object per class listed,
 * so {@link AssigndAssignor2}, {@link AssigndAssignor3} and
 * {@link AssigndAssignor4} are the same assignor in slots 2 to 4, each with
 * its own name, protocol name and group label.
 */
public class AssigndAssignor extends PluginAssignor<PluginConfig, Requests.Built, AssignResponse, GroupAssignment>
    implements ConsumerGroupPartitionAssignor {
  /** Misconfigurations logged at ERROR so far, for tests. */
  static final AtomicLong MISCONFIGURATIONS_LOGGED = new AtomicLong();
  private static final PluginCall.Kind KIND = new PluginCall.Kind(GroupType.CONSUMER, LoggerFactory.getLogger(AssigndAssignor.class),
      "assignd plugin", "target", PartitionAssignorException.class, PartitionAssignorException::new, MISCONFIGURATIONS_LOGGED);
  private static final PluginCall.Rpc<Requests.Built, AssignResponse, GroupAssignment> ASSIGN = new PluginCall.Rpc<>(
      (stub, b) -> stub.assign(b.request()), Requests::toAssignment, Recorder::encode,
      r -> r.getAssignor() + "@" + r.getAssignorVersion() + ", policy " + r.getPolicy(), AssignResponse::getWarningsList,
      new GroupAssignment(Map.of()));
  // The built-in assignors keep no state between calls: one of each serves every slot.
  private static final ConsumerGroupPartitionAssignor UNIFORM = new UniformAssignor();
  private static final ConsumerGroupPartitionAssignor RANGE = new RangeAssignor();

  /** Slot 1: settings under {@code assignd.assignor.1.}, default name {@code assignd}. */
  public AssigndAssignor() {
    this(1);
  }

  /** For the other slots' classes. */
  protected AssigndAssignor(int slot) {
    super(KIND, ASSIGN, configs -> PluginConfig.from(slot, configs), c -> builtin(c.fallback).name(),
        c -> WarmUp.run(c, builtin(c.fallback)));
  }

  @Override
  public GroupAssignment assign(GroupSpec spec, SubscribedTopicDescriber topics) throws PartitionAssignorException {
    return call.assign(spec.memberIds().size(), c -> Requests.build(c.groupId, c.protocol, spec, topics),
        c -> builtin(c.fallback).assign(spec, topics));
  }

  static ConsumerGroupPartitionAssignor builtin(PluginConfig.Builtin b) {
    return b == PluginConfig.Builtin.RANGE ? RANGE : UNIFORM;
  }
}
