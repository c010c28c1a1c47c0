package dev.assignd.kafka.broker;

import assignd.v1.AssignmentServiceGrpc;
import assignd.v1.AssignmentServiceGrpc.AssignmentServiceBlockingStub;
import dev.assignd.common.Channels;
import dev.assignd.common.ChannelSettings;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * One assignment asked of assignd by any of the plugins, everything it
 * takes (the channel, the request, the RPC, reading the answer) on a thread
 * of its own, while the coordinator's thread waits for it no longer than
 * the call's deadline.
 * That bounds the coordinator's wait by {@code assignd.deadline.ms} however
 * the time is spent: a cold JVM loading classes, a connection being made, a
 * hung assignd. The RPC carries what is left of the same deadline, so a
 * call given up on is cancelled at assignd too.
 */
final class BoundedCall {
  private static final AtomicInteger THREADS = new AtomicInteger();
  /** Threads for the calls; idle ones end after a minute. Several calls may run at once (offloading coordinators). */
  private static final ExecutorService CALLERS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "assignd-plugin-call-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  private BoundedCall() {}

  /**
   * What a call got: the request sent (null when it was not built), the
   * answer (null when there was none) and the assignment read from it, or
   * why the answer is not one.
   */
  record Result<B, R, O>(B built, R response, O assignment, RuntimeException invalid) {}

  /**
   * Builds the request, sends it (Assign, AssignTasks or AssignShare) and
   * reads the answer, returning by deadlineNanos (a {@link System#nanoTime()}
   * instant).
   *
   * @param send the RPC, on a stub whose deadline is what is left of deadlineNanos
   * @param read the assignment in the answer; what it throws is the result's {@code invalid}
   * @throws io.grpc.StatusRuntimeException as the RPC failed; DEADLINE_EXCEEDED also when the
   *     deadline passed before the RPC could finish (or start)
   * @throws dev.assignd.common.Misconfigured when the settings cannot make a channel
   */
  static <B, R, O> Result<B, R, O> call(ChannelSettings settings, Supplier<B> request,
      BiFunction<AssignmentServiceBlockingStub, B, R> send, BiFunction<B, R, O> read, long deadlineNanos, boolean reconnect) {
    return await(() -> {
      ManagedChannel ch = Channels.get(settings);
      if (reconnect) {
        // gRPC's own reconnect backoff grew while assignd was failing (up
        // to minutes): try again now, so that this call sees assignd as it
        // is rather than the channel's old failure.
        ch.resetConnectBackoff();
      }
      B built = request.get();
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        throw expired("while the request was built");
      }
      R resp = send.apply(AssignmentServiceGrpc.newBlockingStub(ch).withDeadlineAfter(left, TimeUnit.NANOSECONDS), built);
      try {
        return new Result<>(built, resp, read.apply(built, resp), null);
      } catch (RuntimeException e) {
        return new Result<B, R, O>(built, resp, null, e);
      }
    }, deadlineNanos);
  }

  /** Runs work on a call thread and waits for it until deadlineNanos; work's exceptions are rethrown as they are. */
  static <T> T await(Callable<T> work, long deadlineNanos) {
    Future<T> f = CALLERS.submit(work);
    try {
      return f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw expired("before the call finished");
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("the coordinator's thread was interrupted").asRuntimeException();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    }
  }

  /** DEADLINE_EXCEEDED, as a call that ran out of time before it finished throws it. */
  static RuntimeException expired(String when) {
    return Status.DEADLINE_EXCEEDED.withDescription("the deadline passed " + when).asRuntimeException();
  }
}
