package dev.assignd.kafka.broker;

import assignd.v1.ShareAssignment.AssignShareRequest;
import assignd.v1.ShareAssignment.AssignShareResponse;
import assignd.v1.ShareAssignment.ShareMember;
import assignd.v1.ShareAssignment.ShareTopic;
import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Diagnosis;
import io.grpc.StatusRuntimeException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link WarmUp} for the share assignor: once per broker process and
 * target, from {@code configure()}, the fallback runs on a made-up group,
 * and one AssignShare of another goes through the whole path of a call
 * (the call thread, the channel, the stubs, reading the answer), so that
 * the first share group's call does not pay for a cold JVM and a new
 * connection; a wrong target shows here.
 */
final class ShareWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(AssigndShareAssignor.class);
  private static final Map<ChannelSettings, Diagnosis> DONE = new ConcurrentHashMap<>();
  /** How long the broker's start may wait for the warm-up call (once per process and target). */
  static final long WARM_UP_MS = 10_000;

  private ShareWarmUp() {}

  /** Warms this process for c, once per target; returns what the call found wrong, or null. */
  static Diagnosis run(ShareConfig c, ShareGroupPartitionAssignor fallback) {
    return WarmUp.once(DONE, c.channel, () -> {
      try {
        WarmUp.runBuiltin(fallback);
      } catch (RuntimeException | LinkageError e) {
        LOG.warn("assignd share assignor {}: warming up {} failed: {}", c.name, fallback.name(), e.toString(), e);
      }
      String topic = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ").toString();
      AssignShareRequest req = AssignShareRequest.newBuilder().setGroupId(c.groupId).setAssignor(c.assignor)
          .addTopics(ShareTopic.newBuilder().setName(topic).setPartitionCount(2))
          .addMembers(ShareMember.newBuilder().setMemberId("m1").addTopics(topic))
          .build();
      ShareRequests.Built built = new ShareRequests.Built(req, Map.of(topic, Uuid.fromString(topic)));
      try {
        BoundedCall.Result<ShareRequests.Built, AssignShareResponse, GroupAssignment> r = BoundedCall.call(c.channel, () -> built,
            (stub, b) -> stub.assignShare(b.request()), ShareRequests::toAssignment,
            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WARM_UP_MS), false);
        if (r.invalid() != null) {
          LOG.warn("assignd share assignor {}: assignd's answer to the warm-up is not valid: {}", c.name, r.invalid().getMessage());
        }
        return null;
      } catch (StatusRuntimeException e) {
        return Diagnosis.of(e, c.deadlineKey, c.deadlineMs);
      }
    });
  }
}
