package dev.assignd.testkit;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.AssignmentServiceGrpc;
import assignd.v1.ShareAssignment.AssignShareRequest;
import assignd.v1.ShareAssignment.AssignShareResponse;
import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.AssignTasksResponse;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A gRPC server on 127.0.0.1 that misbehaves on purpose (never answers,
 * answers late, answers an error or a wrong plan, or serves nothing), for
 * the failures a real assignd does not produce on demand.
 */
public final class FakeAssignd implements AutoCloseable {
  private final Server server;

  private FakeAssignd(ServerServiceDefinition service) throws IOException {
    var b = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create());
    if (service != null) {
      b.addService(service);
    }
    server = b.build().start();
  }

  /** A server of one method of AssignmentService, handed to handler; the others are UNIMPLEMENTED. */
  private static <Q, R> FakeAssignd serving(MethodDescriptor<Q, R> method, BiConsumer<Q, StreamObserver<R>> handler)
      throws IOException {
    return new FakeAssignd(ServerServiceDefinition.builder(AssignmentServiceGrpc.SERVICE_NAME)
        .addMethod(method, ServerCalls.asyncUnaryCall(handler::accept)).build());
  }

  /** A handler that answers with what answer returns, or the status it throws. */
  private static <Q, R> BiConsumer<Q, StreamObserver<R>> replyWith(Function<Q, R> answer) {
    return (req, out) -> {
      try {
        out.onNext(answer.apply(req));
        out.onCompleted();
      } catch (StatusRuntimeException e) {
        out.onError(e);
      }
    };
  }

  /** Hands every Assign to handler, which answers (or not) on the observer. */
  public static FakeAssignd answering(BiConsumer<AssignRequest, StreamObserver<AssignResponse>> handler) throws IOException {
    return serving(AssignmentServiceGrpc.getAssignMethod(), handler);
  }

  /** Answers every Assign with what answer returns, or the status it throws. */
  public static FakeAssignd replying(Function<AssignRequest, AssignResponse> answer) throws IOException {
    return answering(replyWith(answer));
  }

  /** Hands every AssignTasks to handler, which answers (or not) on the observer; Assign is UNIMPLEMENTED. */
  public static FakeAssignd answeringTasks(BiConsumer<AssignTasksRequest, StreamObserver<AssignTasksResponse>> handler)
      throws IOException {
    return serving(AssignmentServiceGrpc.getAssignTasksMethod(), handler);
  }

  /** Answers every AssignTasks with what answer returns, or the status it throws. */
  public static FakeAssignd replyingTasks(Function<AssignTasksRequest, AssignTasksResponse> answer) throws IOException {
    return answeringTasks(replyWith(answer));
  }

  /** Serves no service at all: every call gets UNIMPLEMENTED. */
  public static FakeAssignd empty() throws IOException {
    return new FakeAssignd(null);
  }

  /** Hands every AssignShare to handler, which answers (or not) on the observer. */
  public static FakeAssignd answeringShare(BiConsumer<AssignShareRequest, StreamObserver<AssignShareResponse>> handler)
      throws IOException {
    return serving(AssignmentServiceGrpc.getAssignShareMethod(), handler);
  }

  /** host:port of the server. */
  public String target() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
