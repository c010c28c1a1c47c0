package dev.assignd.kafka.broker.probe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Where the probe assignors write what the broker gave them: one line per
 * call to the file of the broker setting {@code assignd.probe.file}, read
 * by StreamsShareProbeIT. A line is {@code key=value} fields separated by
 * tabs; values are Java's toString of sorted collections.
 */
final class ProbeLog {
  static final String FILE = "assignd.probe.file";

  private final Path file;

  ProbeLog(Map<String, ?> configs) {
    Object f = configs.get(FILE);
    file = f == null ? null : Path.of(f.toString());
  }

  synchronized void write(String line) {
    if (file == null) {
      return;
    }
    try {
      Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
