package dev.assignd.common;

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
 * One gRPC channel per process and {@link ChannelSettings}: every consumer
 * (or every plugin instance of a broker) that reaches assignd the same way
 * shares it. A channel connects lazily and reconnects by itself, so one
 * made while assignd is down serves once it is back.
 */
public final class Channels {
  private static final Map<ChannelSettings, ManagedChannel> CHANNELS = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(Channels::shutdownAll, "assignd-channels-shutdown"));
  }

  /** The largest answer a channel accepts. */
  static final int MAX_ANSWER_BYTES = 256 << 20;

  private Channels() {}

  /**
   * The channel of these settings, made on first use.
   *
   * @throws Misconfigured when the settings cannot make one, naming the property
   */
  public static ManagedChannel get(ChannelSettings s) {
    return CHANNELS.computeIfAbsent(s, Channels::build);
  }

  private static ManagedChannel build(ChannelSettings s) {
    if (s.target() == null) {
      throw new Misconfigured(ChannelSettings.TARGET, "is not set", null);
    }
    ChannelCredentials creds = credentials(s);
    try {
      // gRPC's default 4 MiB would refuse the answer of a big group: a
      // million partitions encode to about 16 MB.
      ManagedChannelBuilder<?> mb = Grpc.newChannelBuilder(s.target(), creds).userAgent(s.userAgent())
          .maxInboundMessageSize(MAX_ANSWER_BYTES);
      if (s.serverName() != null) {
        mb.overrideAuthority(s.serverName());
      }
      return mb.build();
    } catch (RuntimeException e) {
      throw new Misconfigured(ChannelSettings.TARGET, "\"" + s.target() + "\" is not a usable gRPC target: " + e, e);
    }
  }

  private static ChannelCredentials credentials(ChannelSettings s) {
    if (!s.tls()) {
      return InsecureChannelCredentials.create();
    }
    TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
    if (s.caFile() != null) {
      try {
        b.trustManager(new File(s.caFile()));
      } catch (IOException | RuntimeException e) {
        throw new Misconfigured(ChannelSettings.TLS_CA_FILE, "cannot be read as a PEM CA bundle: " + e, e);
      }
    }
    if (s.certFile() != null) {
      try {
        b.keyManager(new File(s.certFile()), new File(s.keyFile()));
      } catch (IOException | RuntimeException e) {
        throw new Misconfigured(ChannelSettings.TLS_CERT_FILE + "/" + ChannelSettings.TLS_KEY_FILE,
            "cannot be read as a PEM certificate and PKCS#8 key: " + e, e);
      }
    }
    return b.build();
  }

  /** Closes every channel; later calls make new ones. For shutdown and tests. */
  public static void shutdownAll() {
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
