package dev.assignd.kafka;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;

/** The franz-go member (testbed/cmd/kgomember, kgoassign's cooperative-sticky) as a process, its lines on the timeline. */
final class KgoMember implements AutoCloseable {
  final String name;
  private final Process process;
  private final CountDownLatch closed = new CountDownLatch(1);
  final List<String> stderr = new java.util.concurrent.CopyOnWriteArrayList<>();

  KgoMember(String name, String binary, String brokers, String group, String topic, String assignd, String instance,
      Timeline timeline) throws IOException {
    this.name = name;
    List<String> cmd = new ArrayList<>(List.of(binary, "-brokers", brokers, "-group", group, "-topic", topic, "-assignd", assignd));
    if (instance != null) {
      cmd.addAll(List.of("-instance", instance));
    }
    process = new ProcessBuilder(cmd).start();
    Thread out = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          String[] f = line.split(" ");
          switch (f[0]) {
            case "record" -> timeline.consumed(f[1], Integer.parseInt(f[2]), Long.parseLong(f[3]));
            case "assigned" -> timeline.assigned(name, parts(f));
            case "revoked", "lost" -> timeline.revoked(name, parts(f), f[0]);
            case "closed" -> { }
            default -> stderr.add("unexpected line: " + line);
          }
        }
      } catch (IOException ignored) {
        // the process went away
      } finally {
        timeline.stopped(name);
        closed.countDown();
      }
    }, "kgo-" + name);
    out.setDaemon(true);
    out.start();
    Thread err = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          stderr.add(line);
        }
      } catch (IOException ignored) {
        // the process went away
      }
    }, "kgo-err-" + name);
    err.setDaemon(true);
    err.start();
  }

  private static List<TopicPartition> parts(String[] f) {
    List<TopicPartition> l = new ArrayList<>();
    if (f.length < 3 || f[2].isEmpty()) {
      return l;
    }
    for (String p : f[2].split(",")) {
      l.add(new TopicPartition(f[1], Integer.parseInt(p)));
    }
    return l;
  }

  /** SIGTERM: it commits, runs its revoke callback and exits (a static member does not leave the group). */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    closed.await(10, TimeUnit.SECONDS);
  }
}
