package dev.assignd.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real assignd process on 127.0.0.1, on a port fixed for its life so
 * that it can be killed and started again where its clients look for it.
 * The binary is the system property assignd.binary (scripts/test.sh builds
 * it); without it, it is built with {@code go build} from this checkout.
 */
public final class AssigndProcess implements AutoCloseable {
  private static final Pattern ADDR = Pattern.compile("grpc_addr=(\\S+)");
  /** Commands built with go build in this process, by name. */
  private static final Map<String, Path> BUILT = new HashMap<>();

  private final int port;
  private final List<String> flags;
  private final Queue<String> log = new ConcurrentLinkedQueue<>();
  private volatile Process process;

  private AssigndProcess(int port, List<String> flags) {
    this.port = port;
    this.flags = flags;
  }

  /** Starts assignd on a free port with these extra flags; returns once it serves. */
  public static AssigndProcess start(String... flags) throws IOException, InterruptedException {
    AssigndProcess p = new AssigndProcess(freePort(), List.of(flags));
    p.restart();
    return p;
  }

  /**
   * Starts assignd on a policy of these rules (YAML lines, indented as the
   * list's items), written to dir/policy.yaml under {@code version: 1}.
   */
  public static AssigndProcess withPolicy(Path dir, String... rules) throws IOException, InterruptedException {
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(policy, "version: 1\nrules:\n" + String.join("\n", rules) + "\n");
    return start("--policy=" + policy);
  }

  /** A port nobody listens on (nothing is started there). */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** host:port of its gRPC listener. */
  public String target() {
    return "127.0.0.1:" + port;
  }

  /** The process id, to signal it (kill -STOP freezes it). */
  public long pid() {
    return process.pid();
  }

  /** Every line it has written, stdout and stderr. */
  public Queue<String> log() {
    return log;
  }

  /** Starts it (again) on its port; returns once it serves. */
  public void restart() throws IOException, InterruptedException {
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
  public void kill() throws InterruptedException {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Stops it gracefully (SIGTERM), killing it if it has not exited in 10 s. */
  @Override
  public void close() throws InterruptedException {
    Process p = process;
    if (p != null) {
      p.destroy();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }

  /** The assignd binary: assignd.binary, or one built from this checkout. */
  public static Path binary() throws IOException, InterruptedException {
    return command("assignd.binary", "./cmd/assignd", "assignd");
  }

  /**
   * A command of this checkout a test runs: the path the system property
   * names (scripts/test.sh sets it), or else pkg built once per process
   * ({@link #goBuild}).
   */
  public static synchronized Path command(String property, String pkg, String name) throws IOException, InterruptedException {
    String prop = System.getProperty(property, "");
    if (!prop.isEmpty()) {
      return Path.of(prop);
    }
    Path p = BUILT.get(name);
    if (p == null) {
      p = goBuild(pkg, name);
      BUILT.put(name, p);
    }
    return p;
  }

  /**
   * Builds a command of this checkout with go build into a temporary
   * directory, for a developer who runs Maven without scripts/test.sh.
   */
  public static Path goBuild(String pkg, String name) throws IOException, InterruptedException {
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.exists(root.resolve("go.mod"))) {
      root = root.getParent();
    }
    if (root == null) {
      throw new IllegalStateException("no go.mod above " + Path.of("").toAbsolutePath() + ": set -Dassignd.binary and the like");
    }
    Path out = Files.createTempDirectory("assignd-test").resolve(name);
    Process p = new ProcessBuilder("go", "build", "-o", out.toString(), pkg).directory(root.toFile()).inheritIO().start();
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("go build " + pkg + " failed in " + root);
    }
    return out;
  }
}
