package dev.assignd.kafka;

/** Why a leader assigned with the built-in assignor instead of assignd's answer. */
public enum FallbackReason {
  /** The call's deadline ({@link AssigndConfig#DEADLINE_MS}) passed. */
  DEADLINE,
  /** assignd could not be reached (UNAVAILABLE: down, restarting, connection refused). */
  UNAVAILABLE,
  /** assignd was busy or the group is over its limits (RESOURCE_EXHAUSTED). */
  OVERLOADED,
  /** assignd refused the request as invalid (INVALID_ARGUMENT); see {@link AssigndConfig#INVALID_ARGUMENT}. */
  INVALID_ARGUMENT,
  /** A setting keeps the leader from using assignd: no or bad target, TLS files or handshake, UNIMPLEMENTED, authentication or permission refused. Logged at ERROR naming the property. */
  MISCONFIGURED,
  /** assignd answered, but not with an assignment of this group (a member missing or unknown). */
  BAD_RESPONSE,
  /** Any other status (INTERNAL, UNKNOWN, CANCELLED...). */
  OTHER
}
