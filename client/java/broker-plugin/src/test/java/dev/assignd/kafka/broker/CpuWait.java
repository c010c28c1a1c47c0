package dev.assignd.kafka.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How long the calling thread has waited for a CPU while runnable, from
 * Linux's scheduler statistics: the second field of
 * /proc/thread-self/schedstat, in nanoseconds. The tests subtract it from
 * a call's time, as they subtract garbage collections: on the shared
 * 2-core machine of CI, a thread that is preempted waits several
 * milliseconds for its turn whatever it runs. Read around a call, never
 * by the plugin.
 */
final class CpuWait {
  private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

  private CpuWait() {}

  /** The thread's total wait so far, or 0 where the kernel does not say. */
  static long nanos() {
    try {
      String[] f = Files.readString(SCHEDSTAT, StandardCharsets.US_ASCII).trim().split(" ");
      return Long.parseLong(f[1]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
