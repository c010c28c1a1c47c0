package dev.assignd.kafka.broker;

import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Settings;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;

/**
 * The settings of {@link AssigndTaskAssignor}, read from the broker's
 * configuration as {@link PluginConfig} reads the consumer plugin's: the
 * channel to assignd ({@code assignd.target}, TLS) is the one both plugins
 * share; the rest is under {@code assignd.streams.}, where a deadline or
 * backoff, when set, overrides the shared {@code assignd.deadline.ms} and
 * {@code assignd.backoff.ms}. docs/streams-share.md has the table.
 *
 * <p>A value that cannot be parsed fails the broker's start with a
 * {@link ConfigException} naming the property, as the broker does for its
 * own settings.
 */
final class TaskAssignorConfig {
  static final String PREFIX = "assignd.streams.";
  /** The name a group selects with the group config streams.assignor.name; default {@value #DEFAULT_NAME}. */
  static final String NAME = PREFIX + "name";
  /** The group label sent to assignd (the broker does not give an assignor the group's id); default "kip1071:" + name. */
  static final String GROUP_ID = PREFIX + "group.id";
  /** The task assignor asked for ("sticky@1"); default none, so that assignd (its policy) chooses. */
  static final String ASSIGNOR = PREFIX + "assignor";
  static final String DEADLINE_MS = PREFIX + "deadline.ms";
  static final String BACKOFF_MS = PREFIX + "backoff.ms";
  /** Appends one line per task assignment to this file (debugging and tests); default: none. */
  static final String RECORD_FILE = PREFIX + "record.file";

  static final String DEFAULT_NAME = "assignd";
  static final String GROUP_ID_PREFIX = "kip1071:";
  /** The broker's built-in task assignor's name, which no other may take (KIP-1357: names are unique). */
  static final String BUILTIN_NAME = "sticky";

  final String name;
  final String groupId;
  final String assignor;
  /** The deadline key in effect, for the messages that name it. */
  final String deadlineKey;
  final long deadlineMs;
  final long backoffMs;
  /**
   * The broker's group.streams.acceptable.recovery.lag: the task assignor
   * is not given it (docs/streams-share.md), but as a broker setting it
   * reaches configure like every other.
   */
  final long acceptableRecoveryLag;
  final ChannelSettings channel;
  final String recordFile;

  private TaskAssignorConfig(Map<String, ?> c) {
    name = or(Settings.string(c, NAME), DEFAULT_NAME);
    if (name.equals(BUILTIN_NAME)) {
      throw new ConfigException(NAME, name, "is the name of the broker's built-in task assignor");
    }
    groupId = or(Settings.string(c, GROUP_ID), GROUP_ID_PREFIX + name);
    assignor = or(Settings.string(c, ASSIGNOR), "");
    deadlineKey = c.containsKey(DEADLINE_MS) ? DEADLINE_MS : PluginConfig.DEADLINE_MS;
    deadlineMs = Settings.millis(c, deadlineKey, PluginConfig.DEFAULT_DEADLINE_MS, false);
    backoffMs = Settings.millis(c, c.containsKey(BACKOFF_MS) ? BACKOFF_MS : PluginConfig.BACKOFF_MS,
        PluginConfig.DEFAULT_BACKOFF_MS, true);
    acceptableRecoveryLag = lag(c, GroupCoordinatorConfig.STREAMS_GROUP_ACCEPTABLE_RECOVERY_LAG_CONFIG,
        GroupCoordinatorConfig.STREAMS_GROUP_ACCEPTABLE_RECOVERY_LAG_DEFAULT);
    channel = ChannelSettings.from(c, PluginConfig.PRODUCT);
    recordFile = Settings.string(c, RECORD_FILE);
  }

  static TaskAssignorConfig from(Map<String, ?> configs) {
    return new TaskAssignorConfig(Objects.requireNonNull(configs, "configs"));
  }

  /** The settings before configure (name() may be asked first). */
  static TaskAssignorConfig defaults() {
    return new TaskAssignorConfig(Map.of());
  }

  private static long lag(Map<String, ?> c, String key, long def) {
    String v = Settings.string(c, key);
    if (v == null) {
      return def;
    }
    try {
      long n = Long.parseLong(v);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new ConfigException(key, v, "must be a whole number of records, not negative");
  }

  private static String or(String v, String def) {
    return v == null ? def : v;
  }
}
