package dev.assignd.kafka.broker;

import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Settings;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;

/**
 * What every plugin of the broker reads the same way from its
 * configuration, under the plugin's own prefix ({@code assignd.assignor.1.},
 * {@code assignd.streams.}, {@code assignd.share.}): its name, the group
 * label sent to assignd, the deadline and backoff (the prefix's own when
 * set, else the shared {@code assignd.deadline.ms} and
 * {@code assignd.backoff.ms}), and the channel to assignd
 * ({@code assignd.target}, TLS), which every plugin of the broker shares.
 * {@link PluginCall} runs each call on these.
 *
 * <p>A value that cannot be parsed fails the broker's start with a
 * {@link ConfigException} naming the property, as the broker does for its
 * own settings.
 */
abstract class CallConfig {
  final String name;
  final String groupId;
  /** The deadline key in effect, for the messages that name it. */
  final String deadlineKey;
  final long deadlineMs;
  final long backoffMs;
  final ChannelSettings channel;
  /** The file each call is appended to ({@link Recorder}), or null: none. */
  final String recordFile;

  /**
   * @param prefix the plugin's own keys' prefix
   * @param defaultName the name when {@code prefix + "name"} is not set
   * @param groupIdPrefix what the group label is when {@code prefix + "group.id"} is not set: this and the name
   * @param recordFileKey the key of the record file, or null when the plugin records nothing
   * @param builtins the names of the broker's built-in assignors of the plugin's kind, which no other may take
   */
  CallConfig(Map<String, ?> c, String prefix, String defaultName, String groupIdPrefix, String recordFileKey,
      Set<String> builtins) {
    name = or(Settings.string(c, prefix + "name"), defaultName);
    if (builtins.contains(name)) {
      throw new ConfigException(prefix + "name", name, "is the name of a built-in assignor of the broker");
    }
    groupId = or(Settings.string(c, prefix + "group.id"), groupIdPrefix + name);
    deadlineKey = c.containsKey(prefix + "deadline.ms") ? prefix + "deadline.ms" : PluginConfig.DEADLINE_MS;
    deadlineMs = Settings.millis(c, deadlineKey, PluginConfig.DEFAULT_DEADLINE_MS, false);
    String backoffKey = c.containsKey(prefix + "backoff.ms") ? prefix + "backoff.ms" : PluginConfig.BACKOFF_MS;
    backoffMs = Settings.millis(c, backoffKey, PluginConfig.DEFAULT_BACKOFF_MS, true);
    channel = ChannelSettings.from(c, PluginConfig.PRODUCT);
    recordFile = recordFileKey == null ? null : Settings.string(c, recordFileKey);
  }

  /** What the settings line at configure says of the plugin's own settings ("assignor sticky@1"). */
  abstract String describe();

  static String or(String v, String def) {
    return v == null ? def : v;
  }
}
