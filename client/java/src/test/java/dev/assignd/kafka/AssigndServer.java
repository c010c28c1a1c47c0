package dev.assignd.kafka;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
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
 * A real assignd process on 127.0.0.1 and a free port, for one test class.
 * The binary is the system property assignd.binary (scripts/test.sh builds
 * it); without it, it is built here with {@code go build} from the
 * repository this module lives in.
 */
final class AssigndServer implements AutoCloseable {
  private static final Pattern ADDR = Pattern.compile("grpc_addr=(\\S+)");
  private static volatile Path built;

  private final Process process;
  private final String address;
  final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();

  private AssigndServer(List<String> flags) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary().toString());
    cmd.add("--listen=127.0.0.1:0");
    cmd.add("--metrics-listen=");
    cmd.addAll(flags);
    process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    CompletableFuture<String> addr = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
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
      address = addr.get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IllegalStateException("assignd did not start: " + log, e);
    }
  }

  /** Starts assignd with these extra flags. */
  static AssigndServer start(String... flags) throws IOException, InterruptedException {
    return new AssigndServer(List.of(flags));
  }

  /** host:port of its gRPC listener. */
  String address() {
    return address;
  }

  /** Kills it at once (SIGKILL), as a crash would. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  static synchronized Path binary() throws IOException, InterruptedException {
    String p = System.getProperty("assignd.binary", "");
    if (!p.isEmpty()) {
      return Path.of(p);
    }
    if (built != null) {
      return built;
    }
    // Developer convenience: build it from this checkout (client/java is two levels down).
    Path repo = Path.of("").toAbsolutePath().getParent().getParent();
    Path out = Path.of("target", "assignd-bin", "assignd").toAbsolutePath();
    Files.createDirectories(out.getParent());
    Process go = new ProcessBuilder("go", "build", "-o", out.toString(), "./cmd/assignd")
        .directory(repo.toFile()).inheritIO().start();
    if (!go.waitFor(5, TimeUnit.MINUTES) || go.exitValue() != 0) {
      throw new IllegalStateException("set -Dassignd.binary=PATH: go build ./cmd/assignd failed in " + repo);
    }
    built = out;
    return out;
  }

  static File tempDir(String prefix) throws IOException {
    File d = Files.createTempDirectory(prefix).toFile();
    d.deleteOnExit();
    return d;
  }
}
