package dev.assignd.kafka.broker;

import java.util.Map;

/**
 * What a plugin instance has done since the broker started, over JMX as
 * {@code dev.assignd.kafka.broker:type=AssigndAssignor,name=<instance name>}.
 * Latencies are of the whole {@code assign} call as the coordinator thread
 * waits for it, over the most recent calls (up to 4096), in microseconds.
 */
public interface PluginStatsMXBean {
  /** Assignments asked for by the coordinator. */
  long getCalls();

  /** Assignments that came from assignd. */
  long getServed();

  /** Assignments that came from the built-in fallback, every reason. */
  long getFallbacks();

  /** Fallbacks by {@link FallbackReason} name. */
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
