package dev.assignd.common;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The gRPC user agent of a channel, "PRODUCT/VERSION" (grpc-java appends
 * its own), so that assignd's group history shows which client software
 * asked for each assignment, as the Go client's "assignd-go/VERSION" does.
 * The version is this artifact's, which the build writes into
 * assignd-version.properties, or "devel" when it did not.
 */
public final class UserAgent {
  /** The version of the assignd Java artifacts. */
  public static final String VERSION = version();

  private UserAgent() {}

  /** "product/VERSION". */
  public static String of(String product) {
    return product + "/" + VERSION;
  }

  private static String version() {
    try (InputStream in = UserAgent.class.getResourceAsStream("assignd-version.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version", "");
        if (!v.isEmpty() && !v.startsWith("${")) {
          return v;
        }
      }
    } catch (IOException e) {
      // The version is informative only.
    }
    return "devel";
  }
}
