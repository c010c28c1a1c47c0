package dev.assignd.common;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.net.UnknownHostException;
import javax.net.ssl.SSLException;

/**
 * What a failed Assign call says: why the client falls back, in words for
 * the log, the setting to check when a setting is at fault, and whether the
 * failure lasts long enough that the next calls should not wait for it
 * (the broker plugin backs off on those).
 *
 * @param reason the fallback's reason
 * @param detail the status and what assignd's error details add (ErrorInfo's reason, BadRequest's fields)
 * @param property the property to check (slash-separated when several), or null when no setting is at fault
 * @param backOff whether the failure is likely to last: a deadline, an unreachable, overloaded or
 *     unresolvable target, a failed handshake, a target that does not speak gRPC
 */
public record Diagnosis(FallbackReason reason, String detail, String property, boolean backOff) {
  /** The TLS settings a failed handshake points at. */
  public static final String TLS_PROPERTIES =
      ChannelSettings.TLS_CA_FILE + "/" + ChannelSettings.TLS_CERT_FILE + "/" + ChannelSettings.TLS_SERVER_NAME;

  /** Whether a setting is at fault (logged at ERROR naming {@link #property}). */
  public boolean misconfigured() {
    return property != null;
  }

  /**
   * The diagnosis of a failed call; deadlineKey and deadlineMs name the
   * deadline it ran with, for the message.
   */
  public static Diagnosis of(StatusRuntimeException e, String deadlineKey, long deadlineMs) {
    Status.Code code = e.getStatus().getCode();
    String description = String.valueOf(e.getStatus().getDescription());
    String what = code + ": " + description;
    if (notGrpc(code, description)) {
      return new Diagnosis(FallbackReason.MISCONFIGURED, what
          + ": the target does not speak gRPC (is it assignd's gRPC listener, not its HTTP port?)", ChannelSettings.TARGET, true);
    }
    switch (code) {
      case DEADLINE_EXCEEDED:
        return new Diagnosis(FallbackReason.DEADLINE, what + " (" + deadlineKey + "=" + deadlineMs + ")", null, true);
      case RESOURCE_EXHAUSTED:
        return new Diagnosis(FallbackReason.OVERLOADED, what + errorInfo(e), null, true);
      case UNIMPLEMENTED:
        return new Diagnosis(FallbackReason.MISCONFIGURED, what + ": it does not serve assignd.v1.AssignmentService",
            ChannelSettings.TARGET, false);
      case UNAUTHENTICATED:
      case PERMISSION_DENIED:
        return new Diagnosis(FallbackReason.MISCONFIGURED, what + ": assignd refused this client (its certificate, or assignd's caller rules)",
            ChannelSettings.TLS_CERT_FILE, false);
      case INVALID_ARGUMENT:
        return new Diagnosis(FallbackReason.INVALID_ARGUMENT, what + errorInfo(e) + badRequest(e), null, false);
      case UNAVAILABLE: {
        Throwable tls = causeOf(e, SSLException.class);
        if (tls != null) {
          return new Diagnosis(FallbackReason.MISCONFIGURED, "TLS handshake with assignd failed: " + tls, TLS_PROPERTIES, true);
        }
        if (causeOf(e, UnknownHostException.class) != null || description.contains("resolve")) {
          return new Diagnosis(FallbackReason.MISCONFIGURED, what + ": the target does not resolve", ChannelSettings.TARGET, true);
        }
        return new Diagnosis(FallbackReason.UNAVAILABLE, what, null, true);
      }
      case UNKNOWN:
        if (description.equals("channel closed")) {
          // grpc-java's word for a connection that closed under the call (assignd killed).
          return new Diagnosis(FallbackReason.UNAVAILABLE, what, null, true);
        }
        return new Diagnosis(FallbackReason.OTHER, what + errorInfo(e), null, false);
      default:
        return new Diagnosis(FallbackReason.OTHER, what + errorInfo(e), null, false);
    }
  }

  /**
   * Whether the status is grpc-java's word for a peer that answered, but
   * not in gRPC: an HTTP/1 server (assignd's metrics port, a proxy) breaks
   * the HTTP/2 framing ("http2 exception"), an HTTP/2 server that is not
   * gRPC answers without gRPC's content type.
   */
  private static boolean notGrpc(Status.Code code, String description) {
    if (code != Status.Code.INTERNAL && code != Status.Code.UNKNOWN && code != Status.Code.UNIMPLEMENTED
        && code != Status.Code.UNAVAILABLE) {
      return false;
    }
    String d = description.toLowerCase(java.util.Locale.ROOT);
    return d.contains("http2 exception") || d.contains("invalid content-type") || d.contains("first received frame was not settings");
  }

  private static Throwable causeOf(Throwable t, Class<? extends Throwable> k) {
    for (int i = 0; t != null && i < 16; t = t.getCause(), i++) {
      if (k.isInstance(t)) {
        return t;
      }
    }
    return null;
  }

  /** ", reason R {metadata}" from the status's google.rpc.ErrorInfo, if any. */
  static String errorInfo(StatusRuntimeException e) {
    com.google.rpc.Status st = StatusProto.fromThrowable(e);
    if (st == null) {
      return "";
    }
    for (Any a : st.getDetailsList()) {
      if (a.is(ErrorInfo.class)) {
        try {
          ErrorInfo info = a.unpack(ErrorInfo.class);
          return ", reason " + info.getReason() + (info.getMetadataMap().isEmpty() ? "" : " " + info.getMetadataMap());
        } catch (InvalidProtocolBufferException ignored) {
          // a detail we cannot read says nothing more
        }
      }
    }
    return "";
  }

  /** ", field F: why" from the status's google.rpc.BadRequest, if any. */
  static String badRequest(StatusRuntimeException e) {
    com.google.rpc.Status st = StatusProto.fromThrowable(e);
    if (st == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    for (Any a : st.getDetailsList()) {
      if (a.is(BadRequest.class)) {
        try {
          for (BadRequest.FieldViolation v : a.unpack(BadRequest.class).getFieldViolationsList()) {
            b.append(", field ").append(v.getField()).append(": ").append(v.getDescription());
          }
        } catch (InvalidProtocolBufferException ignored) {
          // a detail we cannot read says nothing more
        }
      }
    }
    return b.toString();
  }
}
