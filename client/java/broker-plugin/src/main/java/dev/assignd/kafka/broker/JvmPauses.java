package dev.assignd.kafka.broker;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The time this JVM has spent in garbage collection, read around a call
 * so that a call held past its deadline tells how much of it every thread
 * of the broker was stopped. On the test brokers (serial collector, a
 * shared 2-core machine) one young collection took 716 ms, while the
 * plugin's own work after its wait took under 20 ms.
 */
final class JvmPauses {
  private static final List<GarbageCollectorMXBean> COLLECTORS = ManagementFactory.getGarbageCollectorMXBeans();

  private JvmPauses() {}

  /** The collectors' accumulated collection time, in nanoseconds (millisecond resolution). */
  static long gcNanos() {
    long ms = 0;
    for (GarbageCollectorMXBean b : COLLECTORS) {
      ms += Math.max(0, b.getCollectionTime());
    }
    return TimeUnit.MILLISECONDS.toNanos(ms);
  }
}
