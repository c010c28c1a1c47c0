package dev.assignd.kafka;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC channel per process and target (with its TLS settings): every
 * consumer of the JVM that uses assignd shares it. A channel connects lazily
 * and reconnects by itself, so a channel made while assignd is down serves
 * once assignd is back.
 */
final class AssigndChannels {
  private static final Map<AssigndConfig.ChannelKey, ManagedChannel> CHANNELS = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(AssigndChannels::shutdownAll, "assignd-channels-shutdown"));
  }

  /**
   * The gRPC user agent of every channel, "assignd-java/VERSION" (grpc-java
   * appends its own), so that assignd's group history shows which client
   * software led each rebalance, as the Go client's "assignd-go/VERSION"
   * does. The version is this artifact's, or "devel" when the build did not
   * record it.
   */
  static final String USER_AGENT = "assignd-java/" + version();

  private AssigndChannels() {}

  private static String version() {
    try (InputStream in = AssigndChannels.class.getResourceAsStream("assignd-version.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version", "");
        if (!v.isEmpty() && !v.startsWith("${")) {
          return v;
        }
      }
    } catch (IOException e) {
      // The version is informative only.
    }
    return "devel";
  }

  /**
   * The channel of these settings, made on first use.
   *
   * @throws MisconfiguredException when the settings cannot make a channel,
   *     naming the property at fault
   */
  static ManagedChannel get(AssigndConfig cfg) {
    return CHANNELS.computeIfAbsent(cfg.channelKey(), k -> build(cfg));
  }

  private static ManagedChannel build(AssigndConfig cfg) {
    if (cfg.target == null) {
      throw new MisconfiguredException(AssigndConfig.TARGET, "is not set");
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
          throw new MisconfiguredException(AssigndConfig.TLS_CA_FILE, "cannot be read as a PEM CA bundle: " + e, e);
        }
      }
      if (cfg.certFile != null) {
        try {
          b.keyManager(new File(cfg.certFile), new File(cfg.keyFile));
        } catch (IOException | RuntimeException e) {
          throw new MisconfiguredException(AssigndConfig.TLS_CERT_FILE + "/" + AssigndConfig.TLS_KEY_FILE,
              "cannot be read as a PEM certificate and PKCS#8 key: " + e, e);
        }
      }
      creds = b.build();
    }
    ManagedChannelBuilder<?> mb;
    try {
      mb = Grpc.newChannelBuilder(cfg.target, creds).userAgent(USER_AGENT);
      if (cfg.serverName != null) {
        mb.overrideAuthority(cfg.serverName);
      }
      return mb.build();
    } catch (RuntimeException e) {
      throw new MisconfiguredException(AssigndConfig.TARGET, "\"" + cfg.target + "\" is not a usable gRPC target: " + e, e);
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
}
