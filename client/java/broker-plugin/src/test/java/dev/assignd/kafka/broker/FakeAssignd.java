package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.AssignmentServiceGrpc;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** An in-process gRPC server that answers Assign as the test says: late, wrong, or with an error. */
final class FakeAssignd implements AutoCloseable {
  private final Server server;

  FakeAssignd(Function<AssignRequest, AssignResponse> answer) throws IOException {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new AssignmentServiceGrpc.AssignmentServiceImplBase() {
          @Override
          public void assign(AssignRequest req, StreamObserver<AssignResponse> out) {
            try {
              out.onNext(answer.apply(req));
              out.onCompleted();
            } catch (io.grpc.StatusRuntimeException e) {
              out.onError(e);
            }
          }
        })
        .build()
        .start();
  }

  String target() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
