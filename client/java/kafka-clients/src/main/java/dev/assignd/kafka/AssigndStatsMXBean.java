package dev.assignd.kafka;

/** What {@link AssigndStats} exposes over JMX. */
public interface AssigndStatsMXBean {
  /** Rebalances this leader (or these leaders) assigned, either way. */
  long getAssignments();

  /** Rebalances assigned by assignd's answer. */
  long getServed();

  /** Rebalances assigned by the built-in assignor instead, for any reason. */
  long getFallbacks();

  /** Of {@link #getFallbacks}, those caused by INVALID_ARGUMENT (or, with {@code assignd.invalid.argument=fail}, the failures). */
  long getInvalidArguments();

  /** Of {@link #getFallbacks}, those caused by a misconfiguration. */
  long getMisconfigurations();
}
