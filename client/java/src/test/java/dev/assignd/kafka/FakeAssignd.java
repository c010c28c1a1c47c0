package dev.assignd.kafka;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.AssignmentServiceGrpc;
import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A gRPC server on 127.0.0.1 that misbehaves on purpose (never answers,
 * answers an error, answers a wrong plan, or serves nothing), for the
 * failures a real assignd does not produce on demand.
 */
final class FakeAssignd implements AutoCloseable {
  private final Server server;

  private FakeAssignd(BindableService service) throws IOException {
    var b = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create());
    if (service != null) {
      b.addService(service);
    }
    server = b.build().start();
  }

  /** Answers every Assign with handler. */
  static FakeAssignd answering(BiConsumer<AssignRequest, StreamObserver<AssignResponse>> handler) throws IOException {
    return new FakeAssignd(new AssignmentServiceGrpc.AssignmentServiceImplBase() {
      @Override
      public void assign(AssignRequest request, StreamObserver<AssignResponse> out) {
        handler.accept(request, out);
      }
    });
  }

  /** Serves no service at all: every call gets UNIMPLEMENTED. */
  static FakeAssignd empty() throws IOException {
    return new FakeAssignd(null);
  }

  String address() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
