package dev.assignd.kafka.broker;

import com.google.protobuf.MessageLite;
import dev.assignd.common.Diagnosis;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.Configurable;

/**
 * What the plugin's assignors (consumer, Streams, share) have in common
 * beside their calls' life ({@link PluginCall}): they are configured from
 * the broker's settings, named by them, and count what they do. Each
 * subclass implements its coordinator's assignor interface, whose
 * {@code name()} this class answers, and passes its {@code assign} to
 * {@link #call}.
 *
 * @param <C> the plugin's settings
 * @param <B> the request, as built from the group
 * @param <R> assignd's answer
 * @param <O> the assignment returned to the coordinator
 */
abstract class PluginAssignor<C extends CallConfig, B extends PluginCall.Built, R extends MessageLite, O>
    implements Configurable {
  final PluginCall<C, B, R, O> call;
  private final Function<Map<String, ?>, C> read;
  private final Function<C, String> fallback;
  private final Function<C, Diagnosis> warmUp;

  /**
   * @param read the plugin's settings in the broker's
   * @param fallback the name of the fallback the settings choose
   * @param warmUp warms the paths of a call once per process and target ({@link WarmUp}); what it found wrong, or null
   */
  PluginAssignor(PluginCall.Kind kind, PluginCall.Rpc<B, R, O> rpc, Function<Map<String, ?>, C> read,
      Function<C, String> fallback, Function<C, Diagnosis> warmUp) {
    C defaults = read.apply(Map.of());
    this.call = new PluginCall<>(kind, rpc, defaults, fallback.apply(defaults));
    this.read = read;
    this.fallback = fallback;
    this.warmUp = warmUp;
  }

  @Override
  public void configure(Map<String, ?> configs) {
    C c = read.apply(configs);
    call.configure(c, fallback.apply(c), warmUp);
  }

  /** The name the settings give this instance (the coordinator may ask it before configure). */
  public String name() {
    return call.config().name;
  }

  /** This instance's counters and latencies. */
  public PluginStats stats() {
    return call.stats();
  }
}
