package dev.assignd.kafka;

import dev.assignd.common.FallbackReason;
import dev.assignd.common.Outcomes;

/**
 * Counters of one assignor instance, and of the whole process
 * ({@link #global()}, registered over JMX as
 * {@value #OBJECT_NAME}). Every count of an instance also counts in the
 * process total.
 */
public final class AssigndStats extends Outcomes implements AssigndStatsMXBean {
  /** The JMX name of {@link #global()}. */
  public static final String OBJECT_NAME = "dev.assignd.kafka:type=AssigndStats";

  private static final AssigndStats GLOBAL = new AssigndStats(null);

  static {
    // JMX is optional: the counters still work through global().
    register(GLOBAL, OBJECT_NAME);
  }

  private final AssigndStats parent;

  private AssigndStats(AssigndStats parent) {
    this.parent = parent;
  }

  static AssigndStats newInstanceStats() {
    return new AssigndStats(GLOBAL);
  }

  /** The counters of every assignd assignor in this process. */
  public static AssigndStats global() {
    return GLOBAL;
  }

  void served() {
    countServed();
    if (parent != null) {
      parent.served();
    }
  }

  void fellBack(FallbackReason reason) {
    countFallback(reason);
    if (parent != null) {
      parent.fellBack(reason);
    }
  }

  @Override
  public long getAssignments() {
    return total();
  }

  @Override
  public long getInvalidArguments() {
    return fallbacks(FallbackReason.INVALID_ARGUMENT);
  }

  @Override
  public long getMisconfigurations() {
    return fallbacks(FallbackReason.MISCONFIGURED);
  }

  @Override
  public String toString() {
    return "assignments=" + getAssignments() + " " + super.toString();
  }
}
