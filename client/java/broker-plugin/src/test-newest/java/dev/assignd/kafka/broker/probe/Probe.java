package dev.assignd.kafka.broker.probe;

import java.util.Map;
import org.apache.kafka.common.Configurable;

/**
 * What both probe assignors share: the name members and groups choose
 * them by, and the log the broker's settings point them to (configure is
 * called with every broker setting, once, at the broker's start).
 */
abstract class Probe implements Configurable {
  ProbeLog log = new ProbeLog(Map.of());

  @Override
  public void configure(Map<String, ?> configs) {
    log = new ProbeLog(configs);
    log.write("configure\tthread=" + Thread.currentThread().getName());
  }

  public String name() {
    return "probe";
  }
}
