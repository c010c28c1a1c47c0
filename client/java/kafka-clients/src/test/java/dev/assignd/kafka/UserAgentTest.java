package dev.assignd.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.common.Channels;
import dev.assignd.common.UserAgent;
import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.AssignmentServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The assignors' gRPC user agent: "assignd-java/VERSION" first, as the Go
 * client sends "assignd-go/VERSION", so that assignd's group history shows
 * which client software led each rebalance.
 */
class UserAgentTest {
  private static final Metadata.Key<String> USER_AGENT = Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);

  @AfterEach
  void closeChannels() {
    Channels.shutdownAll();
  }

  @Test
  void assignCallsCarryTheUserAgent() throws Exception {
    BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String ua = headers.get(USER_AGENT);
        seen.offer(ua == null ? "" : ua);
        return next.startCall(call, headers);
      }
    };
    var service = new AssignmentServiceGrpc.AssignmentServiceImplBase() {
      @Override
      public void assign(AssignRequest request, StreamObserver<AssignResponse> out) {
        out.onError(Status.UNAVAILABLE.withDescription("only the headers matter here").asRuntimeException());
      }
    };
    Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(service, capture)).build().start();
    try {
      Map<String, Object> p = new HashMap<>();
      p.put(AssigndConfig.TARGET, "127.0.0.1:" + server.getPort());
      p.put(AssigndConfig.DEADLINE_MS, "20000"); // a cold JVM may take seconds to make its first connection
      ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, p);
      a.assign(Groups.cluster(), new GroupSubscription(Groups.members(a, false)));
      String ua = seen.poll(10, TimeUnit.SECONDS);
      assertNotNull(ua, "no Assign call reached the server");
      String version = ua.split(" ")[0];
      assertTrue(version.matches("assignd-java/[0-9][^ ]*"), "user agent " + ua);
      assertEquals(UserAgent.of(AssigndConfig.PRODUCT), version);
      assertTrue(ua.contains("grpc-java"), "grpc-java's own part is kept: " + ua);
    } finally {
      server.shutdownNow();
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
