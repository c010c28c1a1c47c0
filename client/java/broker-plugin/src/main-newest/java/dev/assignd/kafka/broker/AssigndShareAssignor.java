package dev.assignd.kafka.broker;

import assignd.v1.ShareAssignment.AssignShareResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.slf4j.LoggerFactory;

/**
 * A share-group assignor (KIP-932) that takes each share group's
 * assignment from assignd (AssignShare), and computes it in-process with
 * the broker's built-in {@link SimpleAssignor} when assignd does not
 * answer in time or at all. Set the broker's {@code group.share.assignors}
 * to its class name: the setting takes one assignor, which every share
 * group uses. docs/streams-share.md.
 *
 * <p>It keeps the consumer plugin's discipline ({@link AssigndAssignor}):
 * the coordinator calls {@link #assign} on its event-processor thread once
 * per group epoch, so every call is bounded by
 * {@code assignd.share.deadline.ms} (default {@code assignd.deadline.ms},
 * 500 ms), and after a call that timed out or found assignd unavailable or
 * overloaded it does not call again for {@code assignd.share.backoff.ms}
 * (default {@code assignd.backoff.ms}, 5 s). It throws
 * {@link PartitionAssignorException} only when the fallback itself fails;
 * every failure of assignd is counted ({@link PluginStats}, type
 * {@code AssigndShareAssignor}) and logged off the coordinator's thread, a
 * misconfiguration once at ERROR: the life of a call is
 * {@link PluginCall}'s, which this class gives the AssignShare RPC and the
 * fallback.
 */
public class AssigndShareAssignor extends PluginAssignor<ShareConfig, ShareRequests.Built, AssignShareResponse, GroupAssignment>
    implements ShareGroupPartitionAssignor {
  /** Misconfigurations logged at ERROR so far, for tests. */
  static final AtomicLong MISCONFIGURATIONS_LOGGED = new AtomicLong();
  private static final PluginCall.Kind KIND = new PluginCall.Kind(GroupType.SHARE, LoggerFactory.getLogger(AssigndShareAssignor.class),
      "assignd share assignor", "share assignment", PartitionAssignorException.class, PartitionAssignorException::new,
      MISCONFIGURATIONS_LOGGED);
  private static final PluginCall.Rpc<ShareRequests.Built, AssignShareResponse, GroupAssignment> ASSIGN_SHARE = new PluginCall.Rpc<>(
      (stub, b) -> stub.assignShare(b.request()), ShareRequests::toAssignment, Recorder::encode,
      r -> r.getAssignor() + ", " + r.getPairs() + " pairs, " + r.getRemoved() + " removed", AssignShareResponse::getWarningsList,
      new GroupAssignment(Map.of()));
  /** The built-in keeps no state between calls. */
  private static final ShareGroupPartitionAssignor SIMPLE = new SimpleAssignor();

  public AssigndShareAssignor() {
    super(KIND, ASSIGN_SHARE, ShareConfig::from, c -> SIMPLE.name(), c -> ShareWarmUp.run(c, SIMPLE));
  }

  @Override
  public GroupAssignment assign(GroupSpec spec, SubscribedTopicDescriber topics) throws PartitionAssignorException {
    return call.assign(spec.memberIds().size(), c -> ShareRequests.build(c, spec, topics), c -> SIMPLE.assign(spec, topics));
  }
}
