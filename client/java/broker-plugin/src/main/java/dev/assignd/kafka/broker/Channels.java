package dev.assignd.kafka.broker;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import java.io.File;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC channel per broker process and target (with its TLS settings),
 * shared by every plugin instance. A channel connects lazily and
 * reconnects by itself, so one made while assignd is down serves once it
 * is back.
 */
final class Channels {
  private static final Map<PluginConfig.ChannelKey, ManagedChannel> CHANNELS = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(Channels::shutdownAll, "assignd-plugin-channels-shutdown"));
  }

  private Channels() {}

  /**
   * The channel of these settings, made on first use.
   *
   * @throws Misconfigured when the settings cannot make one, naming the property
   */
  static ManagedChannel get(PluginConfig cfg) {
    return CHANNELS.computeIfAbsent(cfg.channelKey(), k -> build(cfg));
  }

  private static ManagedChannel build(PluginConfig cfg) {
    if (cfg.target == null) {
      throw new Misconfigured(PluginConfig.TARGET, "is not set");
    }
    ChannelCredentials creds;
    if (!cfg.tls) {
      creds = InsecureChannelCredentials.create();
    } else {
      TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
      if (cfg.caFile != null) {
        try {
          b.trustManager(new File(cfg.caFile));
        } catch (IOException | RuntimeException e) {
          throw new Misconfigured(PluginConfig.TLS_CA_FILE, "cannot be read as a PEM CA bundle: " + e);
        }
      }
      if (cfg.certFile != null) {
        try {
          b.keyManager(new File(cfg.certFile), new File(cfg.keyFile));
        } catch (IOException | RuntimeException e) {
          throw new Misconfigured(PluginConfig.TLS_CERT_FILE + "/" + PluginConfig.TLS_KEY_FILE,
              "cannot be read as a PEM certificate and PKCS#8 key: " + e);
        }
      }
      creds = b.build();
    }
    try {
      ManagedChannelBuilder<?> mb = Grpc.newChannelBuilder(cfg.target, creds);
      if (cfg.serverName != null) {
        mb.overrideAuthority(cfg.serverName);
      }
      return mb.build();
    } catch (RuntimeException e) {
      throw new Misconfigured(PluginConfig.TARGET, "\"" + cfg.target + "\" is not a usable gRPC target: " + e);
    }
  }

  /** Closes every channel; later calls make new ones. For shutdown and tests. */
  static void shutdownAll() {
    for (var it = CHANNELS.entrySet().iterator(); it.hasNext(); ) {
      ManagedChannel ch = it.next().getValue();
      it.remove();
      ch.shutdownNow();
      try {
        ch.awaitTermination(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** A setting that keeps the plugin from making or using a channel. */
  static final class Misconfigured extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String property;

    Misconfigured(String property, String problem) {
      super(property + " " + problem);
      this.property = property;
    }
  }
}
