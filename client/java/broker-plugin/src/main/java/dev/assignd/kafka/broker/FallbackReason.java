package dev.assignd.kafka.broker;

/** Why an assignment came from the built-in assignor instead of assignd. */
public enum FallbackReason {
  /** The call's deadline passed ({@code assignd.deadline.ms}). */
  DEADLINE,
  /** assignd could not be reached (UNAVAILABLE: down, restarting, connection refused). */
  UNAVAILABLE,
  /** assignd was busy or the group over its limits (RESOURCE_EXHAUSTED). */
  OVERLOADED,
  /** Skipped without a call: an earlier call timed out or found assignd unavailable or overloaded within {@code assignd.backoff.ms}. */
  BACKOFF,
  /** assignd refused the request (INVALID_ARGUMENT); logged at ERROR with the field. */
  INVALID_ARGUMENT,
  /**
   * A setting keeps the plugin from using assignd: no or unusable target,
   * unreadable TLS file, failed handshake, UNIMPLEMENTED, UNAUTHENTICATED,
   * PERMISSION_DENIED, or an assignd that does not know target assignments.
   * Logged at ERROR once per distinct problem.
   */
  MISCONFIGURED,
  /** assignd answered, but not with a valid assignment of this group. */
  BAD_RESPONSE,
  /** Anything else (INTERNAL, CANCELLED, an exception in the plugin). */
  OTHER
}
