package dev.assignd.common;

import java.lang.management.ManagementFactory;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * How many assignments assignd served and how many fell back, by
 * {@link FallbackReason}: the counts the leader-side assignors and the
 * broker plugin both keep, each in its own MXBean. Safe for concurrent use.
 */
public class Outcomes {
  private final AtomicLong served = new AtomicLong();
  private final EnumMap<FallbackReason, AtomicLong> fallbacks = new EnumMap<>(FallbackReason.class);

  protected Outcomes() {
    for (FallbackReason r : FallbackReason.values()) {
      fallbacks.put(r, new AtomicLong());
    }
  }

  /** Counts an assignment assignd computed. */
  protected void countServed() {
    served.incrementAndGet();
  }

  /** Counts an assignment the built-in assignor computed instead. */
  protected void countFallback(FallbackReason reason) {
    fallbacks.get(reason).incrementAndGet();
  }

  /** Every assignment counted, served or fallen back. */
  protected long total() {
    return getServed() + getFallbacks();
  }

  /** Assignments that came from assignd. */
  public long getServed() {
    return served.get();
  }

  /** Assignments that came from the built-in assignor, for any reason. */
  public long getFallbacks() {
    long n = 0;
    for (AtomicLong v : fallbacks.values()) {
      n += v.get();
    }
    return n;
  }

  /** Fallbacks for one reason. */
  public long fallbacks(FallbackReason reason) {
    return fallbacks.get(reason).get();
  }

  /** Fallbacks by {@link FallbackReason} name, every reason listed. */
  public Map<String, Long> getFallbacksByReason() {
    Map<String, Long> out = new LinkedHashMap<>();
    fallbacks.forEach((r, c) -> out.put(r.name(), c.get()));
    return out;
  }

  /**
   * Registers bean over JMX under name unless one is there already; JMX is
   * optional, so a failure is returned, not thrown.
   *
   * @return null, or why it was not registered
   */
  protected static String register(Object bean, String name) {
    try {
      var server = ManagementFactory.getPlatformMBeanServer();
      ObjectName n = new ObjectName(name);
      if (!server.isRegistered(n)) {
        server.registerMBean(bean, n);
      }
      return null;
    } catch (JMException | RuntimeException e) {
      return e.toString();
    }
  }

  @Override
  public String toString() {
    return "served=" + getServed() + " fallbacks=" + getFallbacksByReason();
  }
}
