package dev.assignd.kafka;

import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigException;

/**
 * The assignd assignors' settings, read from the consumer's own properties
 * (the map kafka-clients passes to {@link org.apache.kafka.common.Configurable#configure}).
 * Every property has a documented default; only {@link #TARGET} must be set
 * for assignd to be used at all.
 *
 * <p>A value that cannot be parsed (a deadline that is not a positive number,
 * an unknown {@link #INVALID_ARGUMENT}) fails the consumer's construction
 * with a {@link ConfigException}, as kafka-clients does for its own
 * properties. Problems that only show when the call is made (a target that
 * does not resolve, a TLS file that cannot be read, a handshake that fails)
 * are logged at ERROR naming the property, and the leader falls back.
 */
public final class AssigndConfig {
  /** The gRPC target of assignd, e.g. {@code dns:///assignd.internal:7070} or {@code 127.0.0.1:7070}. No default: unset means every rebalance is assigned by the built-in assignor, logged at ERROR. */
  public static final String TARGET = "assignd.target";
  /** The deadline of one Assign call in milliseconds; default {@value #DEFAULT_DEADLINE_MS}. Keep it well under the group's rebalance timeout. */
  public static final String DEADLINE_MS = "assignd.deadline.ms";
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
   * What the leader does when assignd answers INVALID_ARGUMENT (the request
   * cannot be assigned as sent): {@code fallback} (default) logs at ERROR
   * with the field at fault, counts it apart from the other fallbacks and
   * assigns with the built-in assignor, so the group never stalls;
   * {@code fail} throws from the assignor, so the error surfaces from the
   * leader's {@code poll()} and the rebalance does not complete.
   */
  public static final String INVALID_ARGUMENT = "assignd.invalid.argument";

  /** Default of {@link #DEADLINE_MS}, as the Go shim's. */
  public static final long DEFAULT_DEADLINE_MS = 2000;

  /** What to do on INVALID_ARGUMENT; see {@link AssigndConfig#INVALID_ARGUMENT}. */
  public enum InvalidArgumentAction { FALLBACK, FAIL }

  final String groupId;
  final String target;
  final long deadlineMs;
  final boolean tls;
  final String caFile;
  final String certFile;
  final String keyFile;
  final String serverName;
  final InvalidArgumentAction onInvalidArgument;

  private AssigndConfig(Map<String, ?> configs) {
    groupId = string(configs, "group.id");
    target = string(configs, TARGET);
    String d = string(configs, DEADLINE_MS);
    if (d == null) {
      deadlineMs = DEFAULT_DEADLINE_MS;
    } else {
      long v;
      try {
        v = Long.parseLong(d.trim());
      } catch (NumberFormatException e) {
        throw new ConfigException(DEADLINE_MS, d, "must be a whole number of milliseconds");
      }
      if (v <= 0) {
        throw new ConfigException(DEADLINE_MS, d, "must be positive");
      }
      deadlineMs = v;
    }
    caFile = string(configs, TLS_CA_FILE);
    certFile = string(configs, TLS_CERT_FILE);
    keyFile = string(configs, TLS_KEY_FILE);
    serverName = string(configs, TLS_SERVER_NAME);
    String t = string(configs, TLS_ENABLED);
    if (t != null && !t.equalsIgnoreCase("true") && !t.equalsIgnoreCase("false")) {
      throw new ConfigException(TLS_ENABLED, t, "must be true or false");
    }
    boolean implied = caFile != null || certFile != null || keyFile != null || serverName != null;
    tls = t == null ? implied : Boolean.parseBoolean(t);
    if ((certFile == null) != (keyFile == null)) {
      throw new ConfigException(certFile == null ? TLS_CERT_FILE : TLS_KEY_FILE, null,
          TLS_CERT_FILE + " and " + TLS_KEY_FILE + " are set together (mTLS) or not at all");
    }
    String ia = string(configs, INVALID_ARGUMENT);
    if (ia == null || ia.equalsIgnoreCase("fallback")) {
      onInvalidArgument = InvalidArgumentAction.FALLBACK;
    } else if (ia.equalsIgnoreCase("fail")) {
      onInvalidArgument = InvalidArgumentAction.FAIL;
    } else {
      throw new ConfigException(INVALID_ARGUMENT, ia, "must be fallback or fail");
    }
  }

  /** Reads the settings from a consumer's configuration map. */
  public static AssigndConfig from(Map<String, ?> configs) {
    return new AssigndConfig(Objects.requireNonNull(configs, "configs"));
  }

  /** The key of the channel these settings dial: one channel per process and key. */
  ChannelKey channelKey() {
    return new ChannelKey(target, tls, caFile, certFile, keyFile, serverName);
  }

  record ChannelKey(String target, boolean tls, String caFile, String certFile, String keyFile, String serverName) {}

  private static String string(Map<String, ?> configs, String key) {
    Object v = configs.get(key);
    if (v == null) {
      return null;
    }
    String s = v.toString().trim();
    return s.isEmpty() ? null : s;
  }
}
