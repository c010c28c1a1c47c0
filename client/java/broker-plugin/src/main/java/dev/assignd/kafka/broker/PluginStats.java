package dev.assignd.kafka.broker;

import dev.assignd.common.FallbackReason;
import dev.assignd.common.Outcomes;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters and latencies of one plugin instance name, shared by every
 * object of that name in the broker (the coordinator may construct its
 * configuration more than once) and registered over JMX once.
 *
 * <p>Kafka 4.1.1 offers KIP-877 plugin metrics ({@code Monitorable}) to
 * some plugins, but the group coordinator neither wraps its assignors nor
 * hands them a {@code PluginMetrics}, so the plugin publishes its own MBean
 * beside the broker's (same JVM, same JMX exporter).
 */
public final class PluginStats extends Outcomes implements PluginStatsMXBean {
  private static final Logger LOG = LoggerFactory.getLogger(PluginStats.class);
  private static final Map<String, PluginStats> BY_NAME = new ConcurrentHashMap<>();
  static final String DOMAIN = "dev.assignd.kafka.broker";

  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong maxNanos = new AtomicLong();
  private final GroupType groupType;
  private volatile String groupId = "";
  private volatile String lastOutcome = "";
  private final Reservoir servedLatency = new Reservoir(4096);
  private final Reservoir fallbackLatency = new Reservoir(4096);

  private PluginStats(GroupType groupType) {
    this.groupType = groupType;
  }

  /** The stats of a consumer-group instance name, registered over JMX on first use. */
  public static PluginStats of(String name) {
    return of(GroupType.CONSUMER, name);
  }

  /**
   * The stats of an instance name of one group type, registered over JMX on
   * first use. Names are per type: a consumer and a Streams assignor may
   * both be called {@code assignd}.
   */
  public static PluginStats of(GroupType type, String name) {
    String on = objectName(type, name);
    return BY_NAME.computeIfAbsent(on, n -> {
      PluginStats s = new PluginStats(type);
      String failed = register(s, on);
      if (failed != null) {
        LOG.warn("assignd plugin {} ({} groups): not registered over JMX: {}", name, type, failed);
      }
      return s;
    });
  }

  /** The JMX name of a consumer-group instance's stats. */
  static String objectName(String name) {
    return objectName(GroupType.CONSUMER, name);
  }

  /** The JMX name of an instance's stats. */
  static String objectName(GroupType type, String name) {
    return DOMAIN + ":type=" + type.mbeanType() + ",name=" + javax.management.ObjectName.quote(name);
  }

  /** The group label this instance sends assignd (the broker does not tell an assignor the group's id). */
  void groupId(String id) {
    groupId = id;
  }

  void served(long nanos) {
    countServed();
    servedLatency.add(nanos);
    finished("SERVED", nanos);
  }

  void fellBack(FallbackReason reason, long nanos) {
    countFallback(reason);
    fallbackLatency.add(nanos);
    finished(reason.name(), nanos);
  }

  private void finished(String outcome, long nanos) {
    lastOutcome = outcome;
    maxNanos.accumulateAndGet(nanos, Math::max);
  }

  @Override
  public String getGroupType() {
    return groupType.name();
  }

  @Override
  public String getGroupId() {
    return groupId;
  }

  @Override
  public String getLastOutcome() {
    return lastOutcome;
  }

  @Override
  public long getMaxLatencyMicros() {
    return maxNanos.get() / 1000;
  }

  void failed() {
    failures.incrementAndGet();
  }

  @Override
  public long getCalls() {
    return total();
  }

  @Override
  public long getFailures() {
    return failures.get();
  }

  @Override
  public long getServedLatencyP50Micros() {
    return servedLatency.quantileMicros(0.50);
  }

  @Override
  public long getServedLatencyP99Micros() {
    return servedLatency.quantileMicros(0.99);
  }

  @Override
  public long getFallbackLatencyP50Micros() {
    return fallbackLatency.quantileMicros(0.50);
  }

  @Override
  public long getFallbackLatencyP99Micros() {
    return fallbackLatency.quantileMicros(0.99);
  }

  /** The most recent samples, a fixed number of them. */
  static final class Reservoir {
    private final long[] ring;
    private long count;

    Reservoir(int size) {
      ring = new long[size];
    }

    synchronized void add(long nanos) {
      ring[(int) (count++ % ring.length)] = nanos;
    }

    /**
     * The q-quantile (nearest rank) in µs, or -1 when empty. Sorted outside
     * the lock: a JMX read must not hold up the coordinator's thread adding
     * a sample.
     */
    long quantileMicros(double q) {
      long[] s;
      synchronized (this) {
        int n = (int) Math.min(count, ring.length);
        if (n == 0) {
          return -1;
        }
        s = Arrays.copyOf(ring, n);
      }
      int n = s.length;
      Arrays.sort(s);
      int rank = (int) Math.ceil(q * n) - 1;
      return s[Math.max(0, Math.min(n - 1, rank))] / 1000;
    }
  }
}
