package dev.assignd.common;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * Reading {@code assignd.*} values from the configuration map Kafka hands a
 * plugin. A value that cannot be parsed throws {@link ConfigException}
 * naming the property, as Kafka does for its own settings.
 */
public final class Settings {
  private Settings() {}

  /** The value of key, trimmed; null when it is unset or blank. */
  public static String string(Map<String, ?> configs, String key) {
    Object v = configs.get(key);
    if (v == null) {
      return null;
    }
    String s = v.toString().trim();
    return s.isEmpty() ? null : s;
  }

  /** true or false (any case); def when unset. */
  public static boolean bool(Map<String, ?> configs, String key, boolean def) {
    String v = string(configs, key);
    if (v == null) {
      return def;
    }
    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
      throw new ConfigException(key, v, "must be true or false");
    }
    return Boolean.parseBoolean(v);
  }

  /** A whole number of milliseconds, positive (or, with zeroOK, not negative); def when unset. */
  public static long millis(Map<String, ?> configs, String key, long def, boolean zeroOK) {
    String v = string(configs, key);
    if (v == null) {
      return def;
    }
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new ConfigException(key, v, "must be a whole number of milliseconds");
    }
    if (n < 0 || (n == 0 && !zeroOK)) {
      throw new ConfigException(key, v, zeroOK ? "must not be negative" : "must be positive");
    }
    return n;
  }
}
