package dev.assignd.kafka.broker;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * The plugin timed from outside, for the real-broker tests: loaded by the
 * broker in place of {@link AssigndAssignor} (same name, same settings),
 * it measures the whole of each {@code assign} as the coordinator's thread
 * spends it, the plugin's record file and log lines included, which the
 * plugin's own timing cannot cover. One line per call in the file named by
 * {@value #FILE}: {@code outcome startNanos nanos gcNanos runQueueNanos
 * members thread}: when it began ({@link System#nanoTime()}), how long it
 * took, how much of that the JVM spent in garbage collection
 * ({@link JvmPauses}) and the thread waited, runnable, for a CPU
 * ({@link CpuWait}), the group's size and the calling thread; written by a
 * thread of its own so that the timing costs the coordinator's thread only
 * a queue insertion.
 */
public class TimedAssignor extends AssigndAssignor {
  /** The broker setting naming the file of timings. */
  static final String FILE = "assignd.test.timed.file";
  /** Polled, not waited on: waking a writer would cost the coordinator's thread (OffThread). */
  private static final Queue<String> LINES = new ConcurrentLinkedQueue<>();
  private static volatile Thread writer;

  @Override
  public void configure(Map<String, ?> configs) {
    super.configure(configs);
    Object file = configs.get(FILE);
    if (file != null) {
      startWriter(Path.of(file.toString()));
    }
  }

  @Override
  public GroupAssignment assign(GroupSpec spec, SubscribedTopicDescriber topics) throws PartitionAssignorException {
    long waitStart = CpuWait.nanos();
    long gcStart = JvmPauses.gcNanos();
    long start = System.nanoTime();
    try {
      return super.assign(spec, topics);
    } finally {
      long took = System.nanoTime() - start;
      long gc = JvmPauses.gcNanos() - gcStart;
      long waited = CpuWait.nanos() - waitStart;
      // One group's calls run one at a time (its coordinator shard's
      // thread), so in a test of one group the outcome is this call's;
      // with several, Timings pairs these lines with the plugin's records.
      LINES.add(stats().getLastOutcome() + " " + start + " " + took + " " + gc + " " + waited + " " + spec.memberIds().size() + " "
          + Thread.currentThread().getName().replace(' ', '_') + "\n");
    }
  }

  /**
   * Writes a jar of this class and {@link CpuWait}, from the test classes'
   * directory, for the broker's classpath (testbroker takes jars, a
   * directory standing for the jars in it).
   */
  static Path jar(Path testClasses, Path out) throws IOException {
    String dir = TimedAssignor.class.getPackageName().replace('.', '/');
    try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(out));
        var files = Files.list(testClasses.resolve(dir))) {
      List<String> classes = List.of(TimedAssignor.class.getSimpleName(), CpuWait.class.getSimpleName());
      for (Path f : files.filter(f -> classes.stream().anyMatch(c -> f.getFileName().toString().matches(c + "(\\$.*)?\\.class"))).toList()) {
        j.putNextEntry(new JarEntry(dir + "/" + f.getFileName()));
        j.write(Files.readAllBytes(f));
        j.closeEntry();
      }
    }
    return out;
  }

  private static synchronized void startWriter(Path file) {
    if (writer != null) {
      return;
    }
    Thread t = new Thread(() -> {
      try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
        while (true) {
          String line = LINES.poll();
          if (line == null) {
            w.flush();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(OffThread.POLL_MS));
          } else {
            w.write(line);
          }
        }
      } catch (IOException e) {
        System.err.println("TimedAssignor: timings stop: " + e);
      }
    }, "assignd-test-timings");
    t.setDaemon(true);
    t.start();
    writer = t;
  }
}
