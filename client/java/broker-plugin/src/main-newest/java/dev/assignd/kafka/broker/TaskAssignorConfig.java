package dev.assignd.kafka.broker;

import dev.assignd.common.Settings;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;

/**
 * The settings of {@link AssigndTaskAssignor}, read from the broker's
 * configuration as {@link CallConfig} reads every plugin's, under
 * {@code assignd.streams.}; docs/streams-share.md has the table.
 */
final class TaskAssignorConfig extends CallConfig {
  static final String PREFIX = "assignd.streams.";
  /** The name a group selects with the group config streams.assignor.name; default "assignd", not "sticky" (the built-in's). */
  static final String NAME = PREFIX + "name";
  /** The group label sent to assignd (the broker does not give an assignor the group's id); default "kip1071:" + name. */
  static final String GROUP_ID = PREFIX + "group.id";
  /** The task assignor asked for ("sticky@1"); default none, so that assignd (its policy) chooses. */
  static final String ASSIGNOR = PREFIX + "assignor";
  static final String DEADLINE_MS = PREFIX + "deadline.ms";
  static final String BACKOFF_MS = PREFIX + "backoff.ms";
  /** Appends one line per task assignment to this file (debugging and tests); default: none. */
  static final String RECORD_FILE = PREFIX + "record.file";

  final String assignor;
  /**
   * The broker's group.streams.acceptable.recovery.lag: the task assignor
   * is not given it (docs/streams-share.md), but as a broker setting it
   * reaches configure like every other.
   */
  final long acceptableRecoveryLag;

  private TaskAssignorConfig(Map<String, ?> c) {
    super(c, PREFIX, "assignd", "kip1071:", RECORD_FILE, Set.of("sticky"));
    assignor = or(Settings.string(c, ASSIGNOR), "");
    acceptableRecoveryLag = lag(c, GroupCoordinatorConfig.STREAMS_GROUP_ACCEPTABLE_RECOVERY_LAG_CONFIG,
        GroupCoordinatorConfig.STREAMS_GROUP_ACCEPTABLE_RECOVERY_LAG_DEFAULT);
  }

  @Override
  String describe() {
    return "assignor " + (assignor.isEmpty() ? "assignd's choice" : assignor);
  }

  /** @throws ConfigException naming the property whose value cannot be parsed */
  static TaskAssignorConfig from(Map<String, ?> configs) {
    return new TaskAssignorConfig(Objects.requireNonNull(configs, "configs"));
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
}
