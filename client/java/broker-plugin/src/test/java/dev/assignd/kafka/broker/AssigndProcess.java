package dev.assignd.kafka.broker;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real assignd process on 127.0.0.1, on a port fixed for the life of the
 * test so that it can be stopped and started again where the broker looks
 * for it. The binary is the system property assignd.binary (scripts/test.sh
 * builds it); without it, it is built with {@code go build} from this checkout.
 */
final class AssigndProcess implements AutoCloseable {
  private static final Pattern ADDR = Pattern.compile("grpc_addr=(\\S+)");
  private static volatile Path built;

  final int port;
  private final List<String> flags;
  private volatile Process process;
  final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();

  private AssigndProcess(int port, List<String> flags) {
    this.port = port;
    this.flags = flags;
  }

  /** Starts assignd on a free port with these extra flags. */
  static AssigndProcess start(String... flags) throws IOException, InterruptedException {
    AssigndProcess p = new AssigndProcess(freePort(), List.of(flags));
    p.restart();
    return p;
  }

  /** A port nobody listens on (nothing is started there). */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  String target() {
    return "127.0.0.1:" + port;
  }

  long pid() {
    return process.pid();
  }

  /** Starts it (again) on its port; returns once it serves. */
  void restart() throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary().toString());
    cmd.add("--listen=127.0.0.1:" + port);
    cmd.add("--metrics-listen=");
    cmd.addAll(flags);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    CompletableFuture<String> addr = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          log.add(line);
          Matcher m = ADDR.matcher(line);
          if (!addr.isDone() && m.find()) {
            addr.complete(m.group(1));
          }
        }
      } catch (IOException ignored) {
        // the process went away
      }
      addr.completeExceptionally(new IllegalStateException("assignd exited before serving: " + log));
    }, "assignd-log");
    reader.setDaemon(true);
    reader.start();
    try {
      addr.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IllegalStateException("assignd did not start: " + log, e);
    }
    process = p;
  }

  /** Kills it at once (SIGKILL), as a crash would. */
  void kill() throws InterruptedException {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  static synchronized Path binary() throws IOException, InterruptedException {
    String prop = System.getProperty("assignd.binary", "");
    if (!prop.isEmpty()) {
      return Path.of(prop);
    }
    if (built == null) {
      built = goBuild("./cmd/assignd", "assignd");
    }
    return built;
  }

  /** Builds a command of this checkout with go build into a temporary directory. */
  static Path goBuild(String pkg, String name) throws IOException, InterruptedException {
    File root = new File(System.getProperty("user.dir")).getAbsoluteFile().getParentFile().getParentFile().getParentFile();
    Path out = Files.createTempDirectory("assignd-plugin-test").resolve(name);
    Process p = new ProcessBuilder("go", "build", "-o", out.toString(), pkg).directory(root).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("go build " + pkg + " failed in " + root);
    }
    return out;
  }
}
