package dev.assignd.kafka;

import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Settings;
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
  public static final String TARGET = ChannelSettings.TARGET;
  /** The deadline of one Assign call in milliseconds; default {@value #DEFAULT_DEADLINE_MS}. Keep it well under the group's rebalance timeout. */
  public static final String DEADLINE_MS = "assignd.deadline.ms";
  /** Use TLS; default false, and true when any TLS file or the server name is set. */
  public static final String TLS_ENABLED = ChannelSettings.TLS_ENABLED;
  /** PEM CA bundle that signs assignd's certificate; default: the JVM's default trust store. */
  public static final String TLS_CA_FILE = ChannelSettings.TLS_CA_FILE;
  /** PEM certificate chain of this client, for mTLS (with {@link #TLS_KEY_FILE}); default: none. */
  public static final String TLS_CERT_FILE = ChannelSettings.TLS_CERT_FILE;
  /** PEM PKCS#8 private key of {@link #TLS_CERT_FILE}; default: none. */
  public static final String TLS_KEY_FILE = ChannelSettings.TLS_KEY_FILE;
  /** The name to verify assignd's certificate against (and the call's authority); default: the target's host. */
  public static final String TLS_SERVER_NAME = ChannelSettings.TLS_SERVER_NAME;
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

  /** The product in the gRPC user agent, "assignd-java/VERSION". */
  static final String PRODUCT = "assignd-java";

  /** What to do on INVALID_ARGUMENT; see {@link AssigndConfig#INVALID_ARGUMENT}. */
  public enum InvalidArgumentAction { FALLBACK, FAIL }

  final String groupId;
  final long deadlineMs;
  final ChannelSettings channel;
  final InvalidArgumentAction onInvalidArgument;

  private AssigndConfig(Map<String, ?> configs) {
    groupId = Settings.string(configs, "group.id");
    deadlineMs = Settings.millis(configs, DEADLINE_MS, DEFAULT_DEADLINE_MS, false);
    channel = ChannelSettings.from(configs, PRODUCT);
    String ia = Settings.string(configs, INVALID_ARGUMENT);
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
}
