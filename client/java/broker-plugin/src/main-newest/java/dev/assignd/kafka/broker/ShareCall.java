package dev.assignd.kafka.broker;

import assignd.v1.AssignmentServiceGrpc;
import assignd.v1.ShareAssignment.AssignShareResponse;
import dev.assignd.common.Channels;
import dev.assignd.common.ChannelSettings;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;

/**
 * One share-group assignment asked of assignd (AssignShare), on a call
 * thread of {@link BoundedCall}, so that the coordinator's thread waits no
 * longer than the deadline however the time is spent, and the RPC carries
 * what is left of it.
 */
final class ShareCall {
  private ShareCall() {}

  /** What a call got, as {@link BoundedCall.Result}: the request sent, the answer, and the assignment read or why it is not one. */
  record Result(ShareRequests.Built built, AssignShareResponse response, GroupAssignment assignment, RuntimeException invalid) {}

  /**
   * Builds the request, calls AssignShare and reads the answer, returning by
   * deadlineNanos (a {@link System#nanoTime()} instant).
   *
   * @throws io.grpc.StatusRuntimeException as the RPC failed; DEADLINE_EXCEEDED also when the deadline passed first
   * @throws dev.assignd.common.Misconfigured when the settings cannot make a channel
   */
  static Result assignShare(ChannelSettings settings, Supplier<ShareRequests.Built> request, long deadlineNanos, boolean reconnect) {
    return BoundedCall.await(() -> {
      ManagedChannel ch = Channels.get(settings);
      if (reconnect) {
        ch.resetConnectBackoff(); // as BoundedCall.assign: see assignd as it is now
      }
      ShareRequests.Built built = request.get();
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        throw Status.DEADLINE_EXCEEDED.withDescription("the deadline passed while the request was built").asRuntimeException();
      }
      AssignShareResponse resp = AssignmentServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(left, TimeUnit.NANOSECONDS)
          .assignShare(built.request());
      try {
        return new Result(built, resp, ShareRequests.toAssignment(built, resp), null);
      } catch (RuntimeException e) {
        return new Result(built, resp, null, e);
      }
    }, deadlineNanos);
  }
}
