package dev.assignd.kafka.broker;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/** A loop a real-broker test runs beside it, on a daemon thread of its own, until it is closed. */
final class Background implements AutoCloseable {
  /** The loop: runs until stopped says so. */
  interface Loop {
    void run(BooleanSupplier stopped) throws InterruptedException;
  }

  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  Background(String name, Loop loop) {
    thread = new Thread(() -> {
      try {
        loop.run(stop::get);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Stops the loop and waits for it, 30 s at most. */
  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.join(30_000);
  }
}
