package dev.assignd.common;

/**
 * Why an assignment came from the built-in assignor instead of assignd, the
 * same for a consumer group's leader (kafka-clients) and for the broker
 * plugin.
 */
public enum FallbackReason {
  /** The call's deadline ({@code assignd.deadline.ms}) passed. */
  DEADLINE,
  /** assignd could not be reached (UNAVAILABLE: down, restarting, connection refused). */
  UNAVAILABLE,
  /** assignd was busy or the group over its limits (RESOURCE_EXHAUSTED). */
  OVERLOADED,
  /**
   * The broker plugin only: skipped without a call, because an earlier call
   * failed in a way that lasts (timed out, found assignd unavailable,
   * overloaded or not a gRPC server) within {@code assignd.backoff.ms}.
   */
  BACKOFF,
  /** assignd refused the request as invalid (INVALID_ARGUMENT); logged at ERROR with the field. */
  INVALID_ARGUMENT,
  /**
   * A setting keeps the client from using assignd: no or unusable target, a
   * target that is not a gRPC server, an unreadable TLS file, a failed
   * handshake, UNIMPLEMENTED, UNAUTHENTICATED, PERMISSION_DENIED, or an
   * assignd too old for the request. Logged at ERROR naming the property.
   */
  MISCONFIGURED,
  /** assignd answered, but not with a valid assignment of this group (a member missing or unknown). */
  BAD_RESPONSE,
  /** Anything else (INTERNAL, UNKNOWN, CANCELLED, an exception in the client). */
  OTHER
}
