package dev.assignd.kafka.broker;

import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Settings;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings of {@link AssigndShareAssignor}, read from the broker's
 * configuration as {@link PluginConfig} reads the consumer plugin's: the
 * channel to assignd ({@code assignd.target}, TLS) is the one every plugin
 * of the broker shares; the rest is under {@code assignd.share.}, where a
 * deadline or backoff, when set, overrides the shared
 * {@code assignd.deadline.ms} and {@code assignd.backoff.ms}.
 * docs/streams-share.md has the table.
 *
 * <p>A value that cannot be parsed fails the broker's start with a
 * {@link ConfigException} naming the property, as the broker does for its
 * own settings.
 */
final class ShareConfig {
  static final String PREFIX = "assignd.share.";
  /** The assignor's name, in the broker's logs and the MBean; default {@value #DEFAULT_NAME}. */
  static final String NAME = PREFIX + "name";
  /** The group label sent to assignd (the broker does not give an assignor the group's id); default "kip932:" + name. */
  static final String GROUP_ID = PREFIX + "group.id";
  /** The share assignor asked for ("sticky@1"); default none: assignd's default. */
  static final String ASSIGNOR = PREFIX + "assignor";
  static final String DEADLINE_MS = PREFIX + "deadline.ms";
  static final String BACKOFF_MS = PREFIX + "backoff.ms";

  static final String DEFAULT_NAME = "assignd";
  static final String GROUP_ID_PREFIX = "kip932:";
  /** The broker's built-in share assignor's name, which no other may take. */
  static final String BUILTIN_NAME = "simple";

  final String name;
  final String groupId;
  final String assignor;
  /** The deadline key in effect, for the messages that name it. */
  final String deadlineKey;
  final long deadlineMs;
  final long backoffMs;
  final ChannelSettings channel;

  private ShareConfig(Map<String, ?> c) {
    name = or(Settings.string(c, NAME), DEFAULT_NAME);
    if (name.equals(BUILTIN_NAME)) {
      throw new ConfigException(NAME, name, "is the name of the broker's built-in share assignor");
    }
    groupId = or(Settings.string(c, GROUP_ID), GROUP_ID_PREFIX + name);
    assignor = or(Settings.string(c, ASSIGNOR), "");
    deadlineKey = c.containsKey(DEADLINE_MS) ? DEADLINE_MS : PluginConfig.DEADLINE_MS;
    deadlineMs = Settings.millis(c, deadlineKey, PluginConfig.DEFAULT_DEADLINE_MS, false);
    backoffMs = Settings.millis(c, c.containsKey(BACKOFF_MS) ? BACKOFF_MS : PluginConfig.BACKOFF_MS,
        PluginConfig.DEFAULT_BACKOFF_MS, true);
    channel = ChannelSettings.from(c, PluginConfig.PRODUCT);
  }

  static ShareConfig from(Map<String, ?> configs) {
    return new ShareConfig(Objects.requireNonNull(configs, "configs"));
  }

  /** The settings before configure (name() may be asked first). */
  static ShareConfig defaults() {
    return new ShareConfig(Map.of());
  }

  private static String or(String v, String def) {
    return v == null ? def : v;
  }
}
