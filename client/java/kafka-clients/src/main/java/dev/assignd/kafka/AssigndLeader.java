package dev.assignd.kafka;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.AssignmentServiceGrpc;
import dev.assignd.common.Channels;
import dev.assignd.common.Diagnosis;
import dev.assignd.common.FallbackReason;
import dev.assignd.common.Misconfigured;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the four assignd assignors share: the settings, the call to assignd
 * and the fallback to the built-in assignor they extend. Its methods are
 * not for applications; see {@link AssigndBacked}.
 */
public final class AssigndLeader {
  private static final Logger LOG = LoggerFactory.getLogger(AssigndLeader.class);

  private final String protocolName;
  private final List<RebalanceProtocol> ownProtocols;
  private final AssigndStats stats = AssigndStats.newInstanceStats();
  private AssigndConfig cfg;
  private RebalanceProtocol protocol;

  AssigndLeader(ConsumerPartitionAssignor self) {
    this.protocolName = self.name();
    this.ownProtocols = List.copyOf(self.supportedProtocols());
    this.protocol = highest(ownProtocols);
  }

  void configure(Map<String, ?> configs, Class<?> self) {
    cfg = AssigndConfig.from(configs);
    protocol = groupProtocol(configs.get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG), self);
    if (cfg.channel.target() == null) {
      LOG.error("assignd assignor {}: {} is not set: every rebalance this consumer leads is assigned by Java's built-in {} assignor",
          protocolName, AssigndConfig.TARGET, protocolName);
      return;
    }
    // Connect now, in the background, rather than at the first rebalance:
    // a cold JVM can take longer than the call's deadline to load the
    // transport and finish the handshake. A bad setting shows at startup.
    try {
      Channels.get(cfg.channel).getState(true);
    } catch (Misconfigured e) {
      LOG.error("assignd assignor {}: check {}: {}; rebalances this consumer leads will use Java's built-in {} assignor until it is fixed",
          protocolName, e.property(), e.getMessage(), protocolName);
    }
  }

  AssigndStats stats() {
    return stats;
  }

  RebalanceProtocol protocol() {
    return protocol;
  }

  /**
   * The rebalance protocol the consumer will run, decided as kafka-clients'
   * ConsumerCoordinator does: the highest protocol that every configured
   * assignor supports. cooperative-sticky listed beside an eager-only
   * assignor (range, say) runs EAGER, and assignd must be told so.
   */
  private RebalanceProtocol groupProtocol(Object strategy, Class<?> self) {
    List<RebalanceProtocol> common = new ArrayList<>(ownProtocols);
    if (strategy != null) {
      List<?> entries = strategy instanceof List<?> l ? l
          : strategy instanceof String s ? Arrays.asList(s.split(",")) : List.of(strategy);
      for (Object e : entries) {
        try {
          Class<?> k = e instanceof Class<?> c ? c
              : Class.forName(e.toString().trim(), false, Thread.currentThread().getContextClassLoader() != null
                  ? Thread.currentThread().getContextClassLoader() : AssigndLeader.class.getClassLoader());
          if (k == self) {
            continue;
          }
          Object o = k.getDeclaredConstructor().newInstance();
          if (o instanceof ConsumerPartitionAssignor a) {
            common.retainAll(a.supportedProtocols());
          }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
          // kafka-clients itself will refuse this entry; nothing to decide here.
          LOG.debug("assignd assignor {}: cannot inspect {} of {}: {}", protocolName, e,
              ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, ex.toString());
        }
      }
    }
    return common.isEmpty() ? highest(ownProtocols) : highest(common);
  }

  private static RebalanceProtocol highest(List<RebalanceProtocol> ps) {
    RebalanceProtocol best = null;
    for (RebalanceProtocol p : ps) {
      if (best == null || p.compareTo(best) > 0) {
        best = p;
      }
    }
    return best;
  }

  /**
   * assignd's assignment of the group, or the built-in assignor's when the
   * call fails (counted and logged); never throws, except on
   * INVALID_ARGUMENT with {@code assignd.invalid.argument=fail}.
   */
  Map<String, List<TopicPartition>> assign(Map<String, List<PartitionInfo>> partitionsPerTopic,
      Map<String, Subscription> group, Supplier<Map<String, List<TopicPartition>>> builtIn) {
    if (cfg == null) {
      cfg = AssigndConfig.from(Map.of());
    }
    AssignRequest req;
    ManagedChannel ch;
    try {
      ch = Channels.get(cfg.channel);
      req = AssignRequests.build(cfg.groupId, protocolName, protocol, partitionsPerTopic, group);
    } catch (Misconfigured e) {
      return fallBack(FallbackReason.MISCONFIGURED, "misconfigured: " + e.getMessage(), e.property(), builtIn);
    } catch (RuntimeException e) {
      // A subscription the protocol cannot carry; kafka-clients would refuse it too.
      return fallBack(FallbackReason.OTHER, "cannot write the request: " + e, null, builtIn);
    }
    AssignResponse resp;
    try {
      resp = AssignmentServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(cfg.deadlineMs, TimeUnit.MILLISECONDS)
          .assign(req);
    } catch (StatusRuntimeException e) {
      return failed(e, builtIn);
    } catch (RuntimeException e) {
      return fallBack(FallbackReason.OTHER, e.toString(), null, builtIn);
    }
    Map<String, List<TopicPartition>> out;
    try {
      out = AssignRequests.toAssignments(resp, group);
    } catch (IllegalStateException e) {
      return fallBack(FallbackReason.BAD_RESPONSE, e.getMessage(), null, builtIn);
    }
    stats.served();
    for (String w : resp.getWarningsList()) {
      LOG.warn("assignd assignor {} (group {}): assignd warns: {}", protocolName, cfg.groupId, w);
    }
    LOG.debug("assignd assignor {} (group {}): assigned by assignd ({} v{}, policy {}), follow-up {}",
        protocolName, cfg.groupId, resp.getAssignor(), resp.getAssignorVersion(), resp.getPolicy(),
        resp.getFollowupRequired());
    return out;
  }

  private Map<String, List<TopicPartition>> failed(StatusRuntimeException e, Supplier<Map<String, List<TopicPartition>>> builtIn) {
    Diagnosis d = Diagnosis.of(e, AssigndConfig.DEADLINE_MS, cfg.deadlineMs);
    if (d.reason() != FallbackReason.INVALID_ARGUMENT) {
      return fallBack(d.reason(), d.detail(), d.property(), builtIn);
    }
    stats.fellBack(FallbackReason.INVALID_ARGUMENT);
    if (cfg.onInvalidArgument == AssigndConfig.InvalidArgumentAction.FAIL) {
      LOG.error("assignd assignor {} (group {}): assignd refused the request: {}; failing the rebalance ({}=fail)",
          protocolName, cfg.groupId, d.detail(), AssigndConfig.INVALID_ARGUMENT);
      throw new KafkaException("assignd refused the assignment request of group " + cfg.groupId + ": " + d.detail());
    }
    LOG.error("assignd assignor {} (group {}): assignd refused the request: {}; assigning with Java's built-in {} assignor ({}=fallback)",
        protocolName, cfg.groupId, d.detail(), protocolName, AssigndConfig.INVALID_ARGUMENT);
    return builtIn.get();
  }

  private Map<String, List<TopicPartition>> fallBack(FallbackReason reason, String detail, String property,
      Supplier<Map<String, List<TopicPartition>>> builtIn) {
    stats.fellBack(reason);
    if (property != null) {
      LOG.error("assignd assignor {} (group {}): check {}: {}; assigning with Java's built-in {} assignor",
          protocolName, cfg.groupId, property, detail, protocolName);
    } else {
      LOG.warn("assignd assignor {} (group {}): assignd failed ({}): {}; assigning with Java's built-in {} assignor",
          protocolName, cfg.groupId, reason, detail, protocolName);
    }
    return builtIn.get();
  }
}
