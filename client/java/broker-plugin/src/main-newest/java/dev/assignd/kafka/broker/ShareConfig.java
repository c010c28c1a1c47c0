package dev.assignd.kafka.broker;

import dev.assignd.common.Settings;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings of {@link AssigndShareAssignor}, read from the broker's
 * configuration as {@link CallConfig} reads every plugin's, under
 * {@code assignd.share.}; docs/streams-share.md has the table.
 */
final class ShareConfig extends CallConfig {
  static final String PREFIX = "assignd.share.";
  /** The assignor's name, in the broker's logs and the MBean; default "assignd", not "simple" (the built-in's). */
  static final String NAME = PREFIX + "name";
  static final String DEADLINE_MS = PREFIX + "deadline.ms";
  static final String BACKOFF_MS = PREFIX + "backoff.ms";
  /** The group label sent to assignd is this and the name, unless assignd.share.group.id sets it. */
  static final String GROUP_ID_PREFIX = "kip932:";

  /** The share assignor asked for ({@code assignd.share.assignor}, "sticky@1"); default none: assignd's default. */
  final String assignor;

  private ShareConfig(Map<String, ?> c) {
    super(c, PREFIX, "assignd", GROUP_ID_PREFIX, null, Set.of("simple"));
    assignor = or(Settings.string(c, PREFIX + "assignor"), "");
  }

  @Override
  String describe() {
    return "assignor " + (assignor.isEmpty() ? "assignd's default" : assignor);
  }

  /** @throws ConfigException naming the property whose value cannot be parsed */
  static ShareConfig from(Map<String, ?> configs) {
    return new ShareConfig(Objects.requireNonNull(configs, "configs"));
  }
}
