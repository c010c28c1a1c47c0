package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The plugin's I/O thread runs what it is handed, in order, on its own thread, from callers on several threads. */
class OffThreadTest {
  @Test
  void runsInOrderOnItsThread() throws Exception {
    int threads = 4;
    int each = 500;
    List<List<Integer>> seen = new ArrayList<>();
    Set<String> ranOn = ConcurrentHashMap.newKeySet();
    CountDownLatch done = new CountDownLatch(threads * each);
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<Integer> mine = new ArrayList<>(); // only the I/O thread appends
      seen.add(mine);
      Thread caller = new Thread(() -> {
        for (int i = 0; i < each; i++) {
          int n = i;
          OffThread.run(() -> {
            mine.add(n);
            ranOn.add(Thread.currentThread().getName());
            done.countDown();
          });
        }
      });
      callers.add(caller);
      caller.start();
    }
    for (Thread c : callers) {
      c.join();
    }
    assertTrue(done.await(10, TimeUnit.SECONDS), "ran " + (threads * each - done.getCount()) + " of " + threads * each);
    assertEquals(Set.of("assignd-plugin-io"), ranOn);
    for (List<Integer> mine : seen) {
      List<Integer> want = new ArrayList<>();
      for (int i = 0; i < each; i++) {
        want.add(i);
      }
      assertEquals(want, mine, "each caller's work in the order it was handed over");
    }
  }
}
