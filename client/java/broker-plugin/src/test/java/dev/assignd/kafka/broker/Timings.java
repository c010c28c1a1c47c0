package dev.assignd.kafka.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The file of {@link TimedAssignor}, read back: every call of the plugin, timed whole on the coordinator's thread. */
final class Timings {
  private Timings() {}

  /** One timed call. */
  record Call(String outcome, long startNanos, long nanos, long gcNanos, long waitNanos, int members, String thread) {
    static Call parse(String line) {
      String[] f = line.split(" ");
      return new Call(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
          Integer.parseInt(f[5]), f[6]);
    }

    /** The call less the JVM's collections. */
    long lessGcNanos() {
      return nanos - gcNanos;
    }

    /** The call less the JVM's collections and the thread's wait for a CPU: what the plugin held the thread. */
    long heldNanos() {
      return nanos - gcNanos - waitNanos;
    }

    @Override
    public String toString() {
      return outcome + " " + nanos / 1000 + " µs (collections " + gcNanos / 1000 + ", wait for a CPU " + waitNanos / 1000 + ")";
    }
  }

  /** A record of the plugin's and the timing of the same call. */
  record Paired(Records.Entry entry, Call call) {}

  /** The calls timed so far, once there are at least n, waiting up to 10 s (a thread of the broker's writes them). */
  static List<Call> atLeast(Path file, int n) throws IOException, InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      List<Call> got = new ArrayList<>();
      if (Files.exists(file)) {
        for (String l : Files.readAllLines(file)) {
          if (l.split(" ").length == 7) {
            got.add(Call.parse(l));
          }
        }
      }
      if (got.size() >= n || System.nanoTime() > until) {
        return got;
      }
      Thread.sleep(20);
    }
  }

  /**
   * Pairs the plugin's records with the timings: on each thread the calls
   * follow one another, and both files keep each thread's order. Calls for
   * a group without members make no record and are left out. Fails when
   * the two do not pair up member for member.
   */
  static List<Paired> pair(List<Records.Entry> entries, List<Call> calls) {
    Map<String, List<Call>> byThread = new LinkedHashMap<>();
    calls.stream().filter(c -> c.members() > 0).forEach(c -> byThread.computeIfAbsent(c.thread(), t -> new ArrayList<>()).add(c));
    Map<String, Integer> next = new LinkedHashMap<>();
    List<Paired> out = new ArrayList<>();
    for (Records.Entry e : entries) {
      List<Call> mine = byThread.getOrDefault(e.thread(), List.of());
      int i = next.merge(e.thread(), 1, Integer::sum) - 1;
      if (i >= mine.size() || !mine.get(i).outcome().equals(e.outcome())
          || mine.get(i).members() != e.applied().getAssignmentsCount()) {
        throw new AssertionError("the timings do not pair with the records on " + e.thread() + " at call " + i + ": "
            + (i < mine.size() ? mine.get(i) : "none") + " vs " + e.outcome() + " of " + e.applied().getAssignmentsCount() + " members");
      }
      out.add(new Paired(e, mine.get(i)));
    }
    return out;
  }
}
