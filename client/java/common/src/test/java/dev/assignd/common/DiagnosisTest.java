package dev.assignd.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.net.UnknownHostException;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every status a call can end in, and what the client makes of it. */
class DiagnosisTest {
  static Stream<Arguments> statuses() {
    return Stream.of(
        // status, reason, property to check (null: none), back off
        Arguments.of(Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded after 0.5s"), FallbackReason.DEADLINE, null, true),
        Arguments.of(Status.UNAVAILABLE.withDescription("io exception: Connection refused"), FallbackReason.UNAVAILABLE, null, true),
        Arguments.of(Status.RESOURCE_EXHAUSTED.withDescription("busy"), FallbackReason.OVERLOADED, null, true),
        Arguments.of(Status.UNKNOWN.withDescription("channel closed"), FallbackReason.UNAVAILABLE, null, true),
        Arguments.of(Status.UNAVAILABLE.withDescription("Unable to resolve host nowhere.invalid")
            .withCause(new UnknownHostException("nowhere.invalid")), FallbackReason.MISCONFIGURED, ChannelSettings.TARGET, true),
        Arguments.of(Status.UNAVAILABLE.withDescription("io exception").withCause(new SSLHandshakeException("bad certificate")),
            FallbackReason.MISCONFIGURED, Diagnosis.TLS_PROPERTIES, true),
        // grpc-java's words for an HTTP/1 server (assignd's metrics port) and a non-gRPC HTTP/2 one.
        Arguments.of(Status.INTERNAL.withDescription("http2 exception"), FallbackReason.MISCONFIGURED, ChannelSettings.TARGET, true),
        Arguments.of(Status.UNKNOWN.withDescription("HTTP status code 200\ninvalid content-type: text/html"),
            FallbackReason.MISCONFIGURED, ChannelSettings.TARGET, true),
        Arguments.of(Status.UNIMPLEMENTED.withDescription("unknown service"), FallbackReason.MISCONFIGURED, ChannelSettings.TARGET, false),
        Arguments.of(Status.PERMISSION_DENIED.withDescription("caller"), FallbackReason.MISCONFIGURED, ChannelSettings.TLS_CERT_FILE, false),
        Arguments.of(Status.UNAUTHENTICATED.withDescription("no certificate"), FallbackReason.MISCONFIGURED, ChannelSettings.TLS_CERT_FILE, false),
        Arguments.of(Status.INVALID_ARGUMENT.withDescription("bad"), FallbackReason.INVALID_ARGUMENT, null, false),
        Arguments.of(Status.INTERNAL.withDescription("panic"), FallbackReason.OTHER, null, false),
        Arguments.of(Status.CANCELLED.withDescription("gone"), FallbackReason.OTHER, null, false));
  }

  @ParameterizedTest
  @MethodSource("statuses")
  void classifies(Status status, FallbackReason reason, String property, boolean backOff) {
    Diagnosis d = Diagnosis.of(status.asRuntimeException(), "assignd.deadline.ms", 500);
    assertEquals(reason, d.reason(), d.toString());
    assertEquals(property, d.property(), d.toString());
    assertEquals(backOff, d.backOff(), d.toString());
    assertTrue(d.detail().startsWith(status.getCode().name()) || d.detail().startsWith("TLS"), d.detail());
  }

  // The deadline's message names the setting and its value.
  @ParameterizedTest
  @MethodSource("statuses")
  void namesTheDeadline(Status status, FallbackReason reason, String property, boolean backOff) {
    if (reason == FallbackReason.DEADLINE) {
      assertTrue(Diagnosis.of(status.asRuntimeException(), "assignd.deadline.ms", 500).detail().endsWith("(assignd.deadline.ms=500)"));
    }
  }

  // assignd's rich details (ErrorInfo's reason, BadRequest's fields) reach the message.
  @org.junit.jupiter.api.Test
  void readsErrorDetails() {
    com.google.rpc.Status st = com.google.rpc.Status.newBuilder()
        .setCode(Status.Code.INVALID_ARGUMENT.value())
        .setMessage("member m1 has no topics")
        .addDetails(Any.pack(ErrorInfo.newBuilder().setReason("NO_TOPICS").setDomain("assignd.dev").build()))
        .addDetails(Any.pack(BadRequest.newBuilder().addFieldViolations(
            BadRequest.FieldViolation.newBuilder().setField("members[0].topics").setDescription("is empty")).build()))
        .build();
    StatusRuntimeException e = StatusProto.toStatusRuntimeException(st);
    Diagnosis d = Diagnosis.of(e, "assignd.deadline.ms", 500);
    assertEquals("INVALID_ARGUMENT: member m1 has no topics, reason NO_TOPICS, field members[0].topics: is empty", d.detail());
  }
}
