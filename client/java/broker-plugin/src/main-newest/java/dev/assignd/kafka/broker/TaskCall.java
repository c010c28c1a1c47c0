package dev.assignd.kafka.broker;

import assignd.v1.AssignmentServiceGrpc;
import assignd.v1.TaskAssignment.AssignTasksResponse;
import dev.assignd.common.Channels;
import dev.assignd.common.ChannelSettings;
import io.grpc.ManagedChannel;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;

/**
 * One task assignment asked of assignd (AssignTasks), bounded as
 * {@link BoundedCall} bounds an Assign: the channel, the request, the RPC
 * and reading the answer run on a call thread, and the coordinator's
 * thread waits no longer than the deadline; the RPC carries what is left
 * of it.
 */
final class TaskCall {
  private TaskCall() {}

  /** What a call got: the request sent (null when it was not built), the answer, the assignment read from it or why it is not one. */
  record Result(TaskRequests.Built built, AssignTasksResponse response, GroupAssignment assignment, RuntimeException invalid) {}

  /**
   * Builds the request, calls AssignTasks and reads the answer, returning
   * by deadlineNanos (a {@link System#nanoTime()} instant).
   *
   * @throws io.grpc.StatusRuntimeException as the RPC failed; DEADLINE_EXCEEDED also when the
   *     deadline passed before the RPC could finish (or start)
   * @throws dev.assignd.common.Misconfigured when the settings cannot make a channel
   */
  static Result assignTasks(ChannelSettings settings, Supplier<TaskRequests.Built> request, long deadlineNanos, boolean reconnect) {
    return BoundedCall.await(() -> {
      ManagedChannel ch = Channels.get(settings);
      if (reconnect) {
        // As BoundedCall.assign: gRPC's reconnect backoff grew while
        // assignd was failing; see assignd as it is now.
        ch.resetConnectBackoff();
      }
      TaskRequests.Built built = request.get();
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        throw BoundedCall.expired("while the request was built");
      }
      AssignTasksResponse resp = AssignmentServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(left, TimeUnit.NANOSECONDS)
          .assignTasks(built.request());
      try {
        return new Result(built, resp, TaskRequests.toAssignment(built, resp), null);
      } catch (RuntimeException e) {
        return new Result(built, resp, null, e);
      }
    }, deadlineNanos);
  }
}
