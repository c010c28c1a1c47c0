package dev.assignd.kafka;

import java.lang.management.ManagementFactory;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Counters of one assignor instance, and of the whole process
 * ({@link #global()}, registered over JMX as
 * {@value #OBJECT_NAME}). Every count of an instance also counts in the
 * process total.
 */
public final class AssigndStats implements AssigndStatsMXBean {
  /** The JMX name of {@link #global()}. */
  public static final String OBJECT_NAME = "dev.assignd.kafka:type=AssigndStats";

  private static final AssigndStats GLOBAL = new AssigndStats(null);

  static {
    try {
      var server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName(OBJECT_NAME);
      if (!server.isRegistered(name)) {
        server.registerMBean(GLOBAL, name);
      }
    } catch (JMException | RuntimeException e) {
      // JMX is optional: the counters still work through global().
    }
  }

  private final AssigndStats parent;
  private final AtomicLong assignments = new AtomicLong();
  private final AtomicLong served = new AtomicLong();
  private final Map<FallbackReason, AtomicLong> fallbacks = new EnumMap<>(FallbackReason.class);

  AssigndStats(AssigndStats parent) {
    this.parent = parent;
    for (FallbackReason r : FallbackReason.values()) {
      fallbacks.put(r, new AtomicLong());
    }
  }

  static AssigndStats newInstanceStats() {
    return new AssigndStats(GLOBAL);
  }

  /** The counters of every assignd assignor in this process. */
  public static AssigndStats global() {
    return GLOBAL;
  }

  void served() {
    assignments.incrementAndGet();
    served.incrementAndGet();
    if (parent != null) {
      parent.served();
    }
  }

  void fellBack(FallbackReason reason) {
    assignments.incrementAndGet();
    fallbacks.get(reason).incrementAndGet();
    if (parent != null) {
      parent.fellBack(reason);
    }
  }

  /** Fallbacks for one reason. */
  public long fallbacks(FallbackReason reason) {
    return fallbacks.get(reason).get();
  }

  @Override
  public long getAssignments() {
    return assignments.get();
  }

  @Override
  public long getServed() {
    return served.get();
  }

  @Override
  public long getFallbacks() {
    long n = 0;
    for (AtomicLong v : fallbacks.values()) {
      n += v.get();
    }
    return n;
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
    return "assignments=" + getAssignments() + " served=" + getServed() + " fallbacks=" + fallbacks;
  }
}
