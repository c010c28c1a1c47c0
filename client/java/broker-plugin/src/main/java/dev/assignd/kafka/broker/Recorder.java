package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends one line per assignment to {@code assignd.record.file}, for
 * debugging and for the real-broker test: {@code instance outcome nanos
 * request response}, the last two base64 protobuf ({@code -} when there is
 * none). The outcome is {@code SERVED} or the fallback reason. Off by
 * default; it costs a file append on the coordinator thread.
 */
final class Recorder {
  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);
  private final Path file;
  private volatile boolean broken;

  Recorder(String file) {
    this.file = Path.of(file);
  }

  void record(String instance, String outcome, long nanos, AssignRequest req, AssignResponse resp) {
    if (broken) {
      return;
    }
    Base64.Encoder b64 = Base64.getEncoder();
    String line = instance + " " + outcome + " " + nanos + " "
        + (req == null ? "-" : b64.encodeToString(req.toByteArray())) + " "
        + (resp == null ? "-" : b64.encodeToString(resp.toByteArray())) + "\n";
    synchronized (Recorder.class) {
      try {
        Files.writeString(file, line, StandardCharsets.US_ASCII, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        broken = true;
        LOG.error("assignd plugin: cannot write {} ({}): {}; recording stops", file, PluginConfig.RECORD_FILE, e.toString());
      }
    }
  }
}
