package dev.assignd.kafka.broker;

import static org.junit.jupiter.api.Assertions.fail;

import dev.assignd.testkit.AssigndProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The real Kafka broker of testbed/kafkabroker (the pinned 4.1.1, or the
 * one whose jars ASSIGND_KAFKA_LIB names), started with the testbroker
 * command (system property assignd.testbroker; built with go build when
 * unset) with extra jars on its classpath and extra settings.
 */
final class TestBroker implements AutoCloseable {
  final Path dir;
  final String bootstrap;

  private TestBroker(Path dir, String bootstrap) {
    this.dir = dir;
    this.bootstrap = bootstrap;
  }

  static TestBroker start(Path dir, List<String> classpath, Map<String, String> settings) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(binary().toString(), "up", "-watch", Long.toString(ProcessHandle.current().pid())));
    for (String c : classpath) {
      cmd.add("-cp");
      cmd.add(c);
    }
    settings.forEach((k, v) -> {
      cmd.add("-set");
      cmd.add(k + "=" + v);
    });
    cmd.add(dir.toString());
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(150, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("testbroker up failed: " + out);
    }
    return new TestBroker(dir, out);
  }

  /**
   * The packaged plugin and its lib/, then more, for the broker's
   * classpath: the system properties plugin.jar and plugin.lib, which mvn
   * verify sets once it has packaged the plugin.
   */
  static List<String> pluginClasspath(String... more) {
    String jar = System.getProperty("plugin.jar", "");
    if (jar.isEmpty() || !Files.exists(Path.of(jar))) {
      fail("plugin.jar is not set or missing (run through mvn verify, which packages the plugin first): " + jar);
    }
    List<String> cp = new ArrayList<>(List.of(jar, System.getProperty("plugin.lib", "")));
    cp.addAll(List.of(more));
    return cp;
  }

  /**
   * Closes what a real-broker test opened, in order (none is null when
   * the test's start failed half-way), then deletes its directory, dir
   * (none when null), unless ASSIGND_KAFKA_KEEP=1 keeps it for a look.
   */
  static void closeAll(Path dir, AutoCloseable... opened) throws Exception {
    for (AutoCloseable c : opened) {
      if (c != null) {
        c.close();
      }
    }
    if (dir != null && !"1".equals(System.getenv("ASSIGND_KAFKA_KEEP"))) {
      try (var walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  /** An admin client of this broker; the caller closes it. */
  Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(p);
  }

  /** A producer of string keys and values to this broker; the caller closes it. */
  KafkaProducer<String, String> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /** The broker's version, from its jar's name (kafka_2.13-V.jar) in ASSIGND_KAFKA_LIB or the default lib. */
  static String version() throws IOException {
    String env = System.getenv("ASSIGND_KAFKA_LIB");
    Path lib = env != null && !env.isEmpty() ? Path.of(env) : repoRoot().resolve(".cache/kafka/lib");
    try (var files = Files.list(lib)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.matches("kafka_2\\.13-[0-9.]+\\.jar"))
          .map(n -> n.substring("kafka_2.13-".length(), n.length() - ".jar".length())).findFirst().orElse("?");
    }
  }

  private static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("go.mod"))) {
      p = p.getParent();
    }
    return p == null ? Path.of("") : p;
  }

  Path log() {
    return dir.resolve("broker").resolve("broker.log");
  }

  String logTail(int n) {
    try {
      List<String> lines = Files.readAllLines(log());
      return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    } catch (IOException e) {
      return "(no broker log: " + e + ")";
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(binary().toString(), "down", dir.toString()).inheritIO().start();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  private static Path binary() throws IOException, InterruptedException {
    return AssigndProcess.command("assignd.testbroker", "./testbed/cmd/testbroker", "testbroker");
  }
}
