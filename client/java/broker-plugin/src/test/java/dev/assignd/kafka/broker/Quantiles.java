package dev.assignd.kafka.broker;

import java.util.List;

/** The distribution of a test's timings, as its report prints them. */
final class Quantiles {
  private Quantiles() {}

  /** The q-quantile (nearest rank) of values; values need not be sorted. */
  static long at(List<Long> values, double q) {
    long[] s = values.stream().mapToLong(Long::longValue).sorted().toArray();
    if (s.length == 0) {
      throw new IllegalArgumentException("no values");
    }
    int rank = (int) Math.ceil(q * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, rank))];
  }

  /** "p50 A, p99 B, max C" of values. */
  static String of(List<Long> values) {
    return "p50 " + at(values, 0.50) + ", p99 " + at(values, 0.99) + ", max " + at(values, 1.0);
  }
}
