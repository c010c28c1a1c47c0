package dev.assignd.common;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where assignd is and how to reach it: the settings that make a channel,
 * read the same way by the leader-side assignors and the broker plugin.
 * Equal settings share one channel per process ({@link Channels}).
 *
 * @param target the gRPC target ({@link #TARGET}); null when unset
 * @param tls whether to use TLS ({@link #TLS_ENABLED})
 * @param caFile {@link #TLS_CA_FILE}, or null
 * @param certFile {@link #TLS_CERT_FILE}, or null
 * @param keyFile {@link #TLS_KEY_FILE}, or null
 * @param serverName {@link #TLS_SERVER_NAME}, or null
 * @param userAgent the channel's user agent ({@link UserAgent#of})
 */
public record ChannelSettings(String target, boolean tls, String caFile, String certFile, String keyFile,
    String serverName, String userAgent) {
  /** The gRPC target of assignd, e.g. {@code dns:///assignd.internal:7070} or {@code 127.0.0.1:7070}. No default. */
  public static final String TARGET = "assignd.target";
  /** Use TLS; default false, and true when any TLS file or the server name is set. */
  public static final String TLS_ENABLED = "assignd.tls.enabled";
  /** PEM CA bundle that signs assignd's certificate; default: the JVM's default trust store. */
  public static final String TLS_CA_FILE = "assignd.tls.ca.file";
  /** PEM certificate chain of this client, for mTLS (with {@link #TLS_KEY_FILE}); default: none. */
  public static final String TLS_CERT_FILE = "assignd.tls.cert.file";
  /** PEM PKCS#8 private key of {@link #TLS_CERT_FILE}; default: none. */
  public static final String TLS_KEY_FILE = "assignd.tls.key.file";
  /** The name to verify assignd's certificate against (and the call's authority); default: the target's host. */
  public static final String TLS_SERVER_NAME = "assignd.tls.server.name";

  /**
   * Reads the settings from a Kafka configuration map; product names the
   * client software in the user agent.
   *
   * @throws ConfigException for a value that cannot be parsed, or a
   *     certificate without its key (or the other way round)
   */
  public static ChannelSettings from(Map<String, ?> configs, String product) {
    String ca = Settings.string(configs, TLS_CA_FILE);
    String cert = Settings.string(configs, TLS_CERT_FILE);
    String key = Settings.string(configs, TLS_KEY_FILE);
    String serverName = Settings.string(configs, TLS_SERVER_NAME);
    boolean implied = ca != null || cert != null || key != null || serverName != null;
    boolean tls = Settings.bool(configs, TLS_ENABLED, implied);
    if ((cert == null) != (key == null)) {
      throw new ConfigException(cert == null ? TLS_CERT_FILE : TLS_KEY_FILE, null,
          TLS_CERT_FILE + " and " + TLS_KEY_FILE + " are set together (mTLS) or not at all");
    }
    return new ChannelSettings(Settings.string(configs, TARGET), tls, ca, cert, key, serverName, UserAgent.of(product));
  }
}
