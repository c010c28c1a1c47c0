package dev.assignd.kafka.broker;

import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Settings;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;

/**
 * One plugin instance's settings, read from the broker's configuration (the
 * originals the group coordinator passes to {@code configure}). Settings
 * shared by every instance have the prefix {@code assignd.}; an instance's
 * own ones {@code assignd.assignor.<slot>.}, where the slot is 1 for
 * {@link AssigndAssignor} and 2 to 4 for {@link AssigndAssignor2} to
 * {@link AssigndAssignor4}. An instance setting overrides the shared one of
 * the same name (deadline, fallback, backoff).
 *
 * <p>A value that cannot be parsed fails the broker's start with a
 * {@link ConfigException} naming the property, as the broker does for its
 * own settings. A missing target is not an error at start: it is logged at
 * ERROR once and every assignment falls back.
 */
final class PluginConfig extends CallConfig {
  /** gRPC target of assignd ({@code dns:///assignd.internal:7070}, {@code host:port}). No default. */
  static final String TARGET = ChannelSettings.TARGET;
  /** Deadline of one Assign call, milliseconds; default {@value #DEFAULT_DEADLINE_MS}. */
  static final String DEADLINE_MS = "assignd.deadline.ms";
  /** The built-in assignor of the fallback: {@code uniform} (default) or {@code range}. */
  static final String FALLBACK = "assignd.fallback";
  /** After a call that timed out or found assignd unavailable or overloaded, skip assignd this long (ms); default {@value #DEFAULT_BACKOFF_MS}; 0: never skip. */
  static final String BACKOFF_MS = "assignd.backoff.ms";
  static final String TLS_ENABLED = ChannelSettings.TLS_ENABLED;
  static final String TLS_CERT_FILE = ChannelSettings.TLS_CERT_FILE;
  /** Appends one line per assignment to this file (debugging and tests); default: none. */
  static final String RECORD_FILE = "assignd.record.file";

  /** Per instance: the name members select with group.remote.assignor. */
  static final String NAME = "name";
  /** Per instance: the protocol name sent to assignd, which its policy maps to an assignor and version. */
  static final String PROTOCOL = "protocol";
  /** Per instance: the group id sent to assignd (the broker does not give the assignor the group's). */
  static final String GROUP_ID = "group.id";

  static final long DEFAULT_DEADLINE_MS = 500;
  static final long DEFAULT_BACKOFF_MS = 5000;
  static final String DEFAULT_PROTOCOL = "cooperative-sticky";
  static final String GROUP_ID_PREFIX = "kip848:";
  /** The product in the gRPC user agent, "assignd-broker-plugin/VERSION". */
  static final String PRODUCT = "assignd-broker-plugin";

  /** The built-in assignors the fallback can run. */
  enum Builtin { UNIFORM, RANGE }

  final int slot;
  final String protocol;
  final Builtin fallback;

  private PluginConfig(int slot, Map<String, ?> c) {
    super(c, slotPrefix(slot), slot == 1 ? "assignd" : "assignd-" + slot, GROUP_ID_PREFIX, RECORD_FILE, Set.of("uniform", "range"));
    this.slot = slot;
    String prefix = slotPrefix(slot);
    protocol = or(Settings.string(c, prefix + PROTOCOL), DEFAULT_PROTOCOL);
    String fbKey = c.containsKey(prefix + "fallback") ? prefix + "fallback" : FALLBACK;
    String fb = or(Settings.string(c, fbKey), "uniform");
    try {
      fallback = Builtin.valueOf(fb.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(fbKey, fb, "must be uniform or range");
    }
  }

  @Override
  String describe() {
    return "slot " + slot + ", protocol name " + protocol;
  }

  static PluginConfig from(int slot, Map<String, ?> configs) {
    return new PluginConfig(slot, Objects.requireNonNull(configs, "configs"));
  }

  static String slotPrefix(int slot) {
    return "assignd.assignor." + slot + ".";
  }
}
