package dev.assignd.testkit;

import dev.assignd.common.Channels;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real assignd for a test class: started before its first test,
 * stopped after its last, when the process's channels are closed too (so
 * the next class starts from a cold channel, as a new process would).
 *
 * <pre>
 * &#64;RegisterExtension
 * static final AssigndExtension assignd = new AssigndExtension();
 * </pre>
 */
public final class AssigndExtension implements BeforeAllCallback, AfterAllCallback {
  private final String[] flags;
  private AssigndProcess process;

  /** assignd with these extra flags. */
  public AssigndExtension(String... flags) {
    this.flags = flags.clone();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    process = AssigndProcess.start(flags);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    Channels.shutdownAll();
    process.close();
  }

  /** host:port of its gRPC listener. */
  public String target() {
    return process.target();
  }

  /** The process, to kill, freeze or restart it. */
  public AssigndProcess process() {
    return process;
  }
}
