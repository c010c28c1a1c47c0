package dev.assignd.kafka;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Captures what slf4j-simple writes to System.err while it is open (tests run one at a time). */
final class LogCapture implements AutoCloseable {
  private final PrintStream saved = System.err;
  private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

  LogCapture() {
    System.setErr(new PrintStream(new TeeStream(saved, buf), true, StandardCharsets.UTF_8));
  }

  String text() {
    System.err.flush();
    return buf.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    System.setErr(saved);
  }

  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public synchronized void write(byte[] bs, int off, int len) throws java.io.IOException {
      a.write(bs, off, len);
      b.write(bs, off, len);
    }
  }
}
