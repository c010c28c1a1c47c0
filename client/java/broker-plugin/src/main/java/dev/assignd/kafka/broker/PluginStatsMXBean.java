package dev.assignd.kafka.broker;

import java.util.Map;

/**
 * What a plugin instance has done since the broker started, over JMX as
 * {@code dev.assignd.kafka.broker:type=<kind>,name=<instance name>}, where the
 * kind is {@code AssigndAssignor} (consumer groups), {@code AssigndTaskAssignor}
 * (Streams groups) or {@code AssigndShareAssignor} (share groups).
 * Latencies are of the whole {@code assign} call as the coordinator thread
 * waits for it, over the most recent calls (up to 4096), in microseconds.
 */
public interface PluginStatsMXBean {
  /** The kind of group this instance assigns: {@code CONSUMER}, {@code STREAMS} or {@code SHARE}. */
  String getGroupType();

  /**
   * The group label this instance sends assignd ({@code kip848:<name>} unless
   * {@code assignd.assignor.<slot>.group.id} says otherwise): the broker tells
   * an assignor no group id, so an instance's counts are those of the groups
   * that select it, under this one label, in assignd's history too.
   */
  String getGroupId();

  /** Assignments asked for by the coordinator. */
  long getCalls();

  /** Who computed the latest target: {@code SERVED} (assignd) or the {@link dev.assignd.common.FallbackReason} of the fallback; empty before the first. */
  String getLastOutcome();

  /** The longest the coordinator's thread waited for one call since the broker started, µs (assignd.deadline.ms plus the fallback at most). */
  long getMaxLatencyMicros();

  /** Assignments that came from assignd. */
  long getServed();

  /** Assignments that came from the built-in fallback, every reason. */
  long getFallbacks();

  /** Fallbacks by {@link dev.assignd.common.FallbackReason} name. */
  Map<String, Long> getFallbacksByReason();

  /** Calls where the fallback failed too (the coordinator got a PartitionAssignorException). */
  long getFailures();

  /** Median latency of calls served by assignd, µs (-1: none yet). */
  long getServedLatencyP50Micros();

  /** 99th percentile latency of calls served by assignd, µs (-1: none yet). */
  long getServedLatencyP99Micros();

  /** Median latency of calls that fell back (the failed attempt included), µs. */
  long getFallbackLatencyP50Micros();

  /** 99th percentile latency of calls that fell back, µs. */
  long getFallbackLatencyP99Micros();
}
