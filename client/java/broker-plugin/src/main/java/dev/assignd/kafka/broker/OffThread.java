package dev.assignd.kafka.broker;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's work that no assignment waits for, its log lines and its
 * record file, done on one thread of its own ({@code assignd-plugin-io}),
 * in the order it was handed over. The coordinator's thread then pays a
 * queue insertion for it (microseconds), not a file append: on a busy
 * broker one append of the broker's log or of the record file took up to
 * 15 ms, three times what a call within a backoff may take.
 *
 * <p>Handing over does not wake the thread: it looks for work every
 * {@value #POLL_MS} ms. Waking a thread that sleeps on a lock costs a
 * system call and, on a busy 2-core broker, the woken thread often takes
 * the caller's core: each wake-up cost the coordinator's thread about 1 ms
 * (measured on Kafka 4.4.0, load average 10), against a few microseconds
 * for a lock-free insertion. Lines and records therefore appear up to
 * that much later.
 *
 * <p>The queue is bounded, so that a stuck disk cannot fill the broker's
 * heap: when it is full, work is dropped and counted, and the next line
 * written says how much.
 */
final class OffThread {
  private static final Logger LOG = LoggerFactory.getLogger(OffThread.class);
  /** Queued work at most; a few seconds of lines at any rate the coordinator calls. */
  static final int CAPACITY = 10_000;
  /** How often the thread looks for work. */
  static final long POLL_MS = 20;
  private static final Queue<Runnable> QUEUE = new ConcurrentLinkedQueue<>();
  private static final AtomicInteger QUEUED = new AtomicInteger();
  private static final AtomicLong DROPPED = new AtomicLong();

  static {
    Thread t = new Thread(OffThread::loop, "assignd-plugin-io");
    t.setDaemon(true);
    t.start();
  }

  private OffThread() {}

  /** Runs work on the plugin's I/O thread, after what was handed over before; drops it when the queue is full. */
  static void run(Runnable work) {
    if (QUEUED.incrementAndGet() > CAPACITY) {
      QUEUED.decrementAndGet();
      DROPPED.incrementAndGet();
      return;
    }
    QUEUE.add(work);
  }

  private static void loop() {
    long reported = 0;
    while (true) {
      Runnable work = QUEUE.poll();
      if (work == null) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MS));
        continue;
      }
      QUEUED.decrementAndGet();
      try {
        work.run();
      } catch (RuntimeException e) {
        LOG.warn("assignd plugin: logging or recording failed: {}", e.toString(), e);
      }
      long dropped = DROPPED.get();
      if (dropped != reported) {
        LOG.warn("assignd plugin: {} log lines or records dropped, the plugin's I/O thread falling behind (is the broker's disk slow?)",
            dropped - reported);
        reported = dropped;
      }
    }
  }
}
