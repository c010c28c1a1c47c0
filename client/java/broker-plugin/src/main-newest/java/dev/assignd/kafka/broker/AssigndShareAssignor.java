package dev.assignd.kafka.broker;

import assignd.v1.ShareAssignment.AssignShareRequest;
import assignd.v1.ShareAssignment.ShareMember;
import assignd.v1.ShareAssignment.ShareTopic;
import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Diagnosis;
import dev.assignd.common.FallbackReason;
import dev.assignd.common.Misconfigured;
import io.grpc.StatusRuntimeException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A share-group assignor (KIP-932) that takes each share group's
 * assignment from assignd (AssignShare), and computes it in-process with
 * the broker's built-in {@link SimpleAssignor} when assignd does not
 * answer in time or at all. Set the broker's {@code group.share.assignors}
 * to its class name: the setting takes one assignor, which every share
 * group uses. docs/streams-share.md.
 *
 * <p>It keeps the consumer plugin's discipline ({@link AssigndAssignor}):
 * the coordinator calls {@link #assign} on its event-processor thread once
 * per group epoch, so every call is bounded by
 * {@code assignd.share.deadline.ms} (default {@code assignd.deadline.ms},
 * 500 ms), and after a call that timed out or found assignd unavailable or
 * overloaded it does not call again for {@code assignd.share.backoff.ms}
 * (default {@code assignd.backoff.ms}, 5 s). It throws
 * {@link PartitionAssignorException} only when the fallback itself fails;
 * every failure of assignd is counted ({@link PluginStats}, type
 * {@code AssigndShareAssignor}) and logged, a misconfiguration once at
 * ERROR.
 */
public class AssigndShareAssignor implements ShareGroupPartitionAssignor, Configurable {
  private static final Logger LOG = LoggerFactory.getLogger(AssigndShareAssignor.class);
  /** Problems already logged at ERROR, by instance and problem: a misconfiguration is logged once. */
  private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();
  /** Misconfigurations logged at ERROR so far, for tests. */
  static final AtomicLong MISCONFIGURATIONS_LOGGED = new AtomicLong();
  /** Channels warmed up in this process: the broker configures its assignors several times while it starts. */
  private static final Map<ChannelSettings, Boolean> WARM = new ConcurrentHashMap<>();
  /** How long the broker's start may wait for the warm-up call (once per process and target). */
  static final long WARM_UP_MS = 10_000;

  private volatile ShareConfig cfg;
  private volatile PluginStats stats;
  private final ShareGroupPartitionAssignor fallback = new SimpleAssignor();
  /** System.nanoTime() before which assignd is not called (backoff); 0: call. */
  private volatile long skipUntil;
  /** Whether the last attempt was a failure, so that recovery and new failures log once. */
  private volatile boolean failing;

  public AssigndShareAssignor() {
    cfg = ShareConfig.defaults();
    stats = PluginStats.of(GroupType.SHARE, cfg.name);
    stats.groupId(cfg.groupId);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    ShareConfig c = ShareConfig.from(configs);
    cfg = c;
    stats = PluginStats.of(GroupType.SHARE, c.name);
    stats.groupId(c.groupId);
    String settings = String.format("target %s, group id %s, assignor %s, deadline %d ms, backoff %d ms, fallback %s%s",
        c.channel.target(), c.groupId, c.assignor.isEmpty() ? "assignd's default" : c.assignor, c.deadlineMs, c.backoffMs,
        fallback.name(), c.channel.tls() ? ", TLS" : "");
    if (LOGGED.add(c.name + "\0settings\0" + settings)) {
      LOG.info("assignd share assignor {}: {}", c.name, settings);
    }
    if (c.channel.target() == null) {
      logOnce(c, "misconfigured", "check " + PluginConfig.TARGET + ": " + PluginConfig.TARGET + " is not set");
      return;
    }
    if (WARM.putIfAbsent(c.channel, true) == null) {
      warmUp(c);
    }
  }

  /**
   * At the broker's start, not on the first group's call: a cold JVM and a
   * new connection cost seconds, several deadlines. The fallback runs on a
   * made-up group, and one AssignShare of another goes through the whole
   * path (the call thread, the channel, the stubs, reading the answer); a
   * wrong target shows here.
   */
  private void warmUp(ShareConfig c) {
    try {
      WarmUp.runBuiltin(fallback);
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("assignd share assignor {}: warming up {} failed: {}", c.name, fallback.name(), e.toString(), e);
    }
    String topic = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ").toString();
    AssignShareRequest req = AssignShareRequest.newBuilder().setGroupId(c.groupId).setAssignor(c.assignor)
        .addTopics(ShareTopic.newBuilder().setName(topic).setPartitionCount(2))
        .addMembers(ShareMember.newBuilder().setMemberId("m1").addTopics(topic))
        .build();
    ShareRequests.Built built = new ShareRequests.Built(req, Map.of(topic, Uuid.fromString(topic)));
    try {
      ShareCall.Result r = ShareCall.assignShare(c.channel, () -> built, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WARM_UP_MS), false);
      if (r.invalid() != null) {
        LOG.warn("assignd share assignor {}: assignd's answer to the warm-up is not valid: {}", c.name, r.invalid().getMessage());
      }
    } catch (StatusRuntimeException e) {
      Diagnosis d = Diagnosis.of(e, c.deadlineKey, c.deadlineMs);
      if (d.misconfigured()) {
        logOnce(c, d.reason().name(), "check " + d.property() + ": " + d.detail());
      } else {
        LOG.warn("assignd share assignor {}: assignd does not answer at the broker's start ({}): {}; share groups are assigned by {} "
            + "until it does", c.name, d.reason(), d.detail(), fallback.name());
      }
    } catch (Misconfigured e) {
      logOnce(c, "misconfigured", "check " + e.property() + ": " + e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("assignd share assignor {}: warming up failed: {}", c.name, e.toString(), e);
    }
  }

  @Override
  public String name() {
    return cfg.name;
  }

  /** This instance's counters and latencies. */
  public PluginStats stats() {
    return stats;
  }

  @Override
  public GroupAssignment assign(GroupSpec spec, SubscribedTopicDescriber topics) throws PartitionAssignorException {
    long gcStart = JvmPauses.gcNanos();
    long start = System.nanoTime();
    ShareConfig c = cfg;
    if (spec.memberIds().isEmpty()) {
      stats.served(System.nanoTime() - start);
      return new GroupAssignment(Map.of());
    }
    long skip = skipUntil;
    if (skip != 0 && start - skip < 0) {
      return fallBack(c, FallbackReason.BACKOFF, spec, topics, start, gcStart);
    }
    try {
      ShareCall.Result r = ShareCall.assignShare(c.channel, () -> ShareRequests.build(c, spec, topics),
          start + TimeUnit.MILLISECONDS.toNanos(c.deadlineMs), skip != 0);
      if (r.invalid() != null) {
        LOG.warn("assignd share assignor {}: assignd's answer is not a valid assignment of the group: {}; assigning with {}",
            c.name, r.invalid().getMessage(), fallback.name());
        return fallBack(c, FallbackReason.BAD_RESPONSE, spec, topics, start, gcStart);
      }
      long took = System.nanoTime() - start;
      stats.served(took);
      overran(c, took, JvmPauses.gcNanos() - gcStart);
      skipUntil = 0;
      if (failing) {
        failing = false;
        LOG.info("assignd share assignor {}: assignd answers again", c.name);
      }
      if (LOG.isDebugEnabled()) {
        LOG.debug("assignd share assignor {}: {} members assigned by assignd ({}, {} pairs, {} removed) in {} µs", c.name,
            r.built().request().getMembersCount(), r.response().getAssignor(), r.response().getPairs(), r.response().getRemoved(),
            took / 1000);
      }
      return r.assignment();
    } catch (Misconfigured e) {
      logOnce(c, "misconfigured", "check " + e.property() + ": " + e.getMessage());
      return fallBack(c, FallbackReason.MISCONFIGURED, spec, topics, start, gcStart);
    } catch (StatusRuntimeException e) {
      return failed(c, e, spec, topics, start, gcStart);
    } catch (RuntimeException e) {
      LOG.warn("assignd share assignor {}: unexpected failure: {}; assigning with {}", c.name, e.toString(), fallback.name(), e);
      return fallBack(c, FallbackReason.OTHER, spec, topics, start, gcStart);
    }
  }

  private GroupAssignment failed(ShareConfig c, StatusRuntimeException e, GroupSpec spec, SubscribedTopicDescriber topics,
      long start, long gcStart) {
    Diagnosis d = Diagnosis.of(e, c.deadlineKey, c.deadlineMs);
    if (d.misconfigured()) {
      logOnce(c, d.reason().name(), "check " + d.property() + ": " + d.detail());
    } else if (d.reason() == FallbackReason.INVALID_ARGUMENT) {
      LOG.error("assignd share assignor {}: assignd refused the request: {}; assigning with {}", c.name, d.detail(), fallback.name());
    } else if (d.backOff() && !failing) {
      failing = true;
      LOG.warn("assignd share assignor {}: assignd failed ({}): {}; assigning with {} and not calling assignd for {} ms",
          c.name, d.reason(), d.detail(), fallback.name(), c.backoffMs);
    } else {
      LOG.debug("assignd share assignor {}: assignd failed ({}): {}", c.name, d.reason(), d.detail());
    }
    if (d.backOff() && c.backoffMs > 0) {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(c.backoffMs);
      skipUntil = until == 0 ? 1 : until;
    }
    return fallBack(c, d.reason(), spec, topics, start, gcStart);
  }

  private GroupAssignment fallBack(ShareConfig c, FallbackReason reason, GroupSpec spec, SubscribedTopicDescriber topics,
      long start, long gcStart) {
    GroupAssignment out;
    try {
      out = fallback.assign(spec, topics);
    } catch (PartitionAssignorException e) {
      stats.failed();
      throw e;
    } catch (RuntimeException e) {
      stats.failed();
      throw new PartitionAssignorException("assignd share assignor " + c.name + ": the fallback " + fallback.name() + " failed too: " + e, e);
    }
    long took = System.nanoTime() - start;
    stats.fellBack(reason, took);
    overran(c, took, JvmPauses.gcNanos() - gcStart);
    // The broker logs the assignor's class either way: say who computed it
    // (within a backoff, the WARN that started it did).
    if (reason != FallbackReason.BACKOFF) {
      LOG.info("assignd share assignor {} (group {}): the assignment of {} members was computed by {}, not assignd ({}), in {} µs",
          c.name, c.groupId, spec.memberIds().size(), fallback.name(), reason, took / 1000);
    }
    return out;
  }

  /** A call that held the coordinator's thread well past its deadline ({@link AssigndAssignor#OVERRUN_MS}): the JVM was stopped or short of CPU. */
  private static void overran(ShareConfig c, long tookNanos, long gcNanos) {
    long took = TimeUnit.NANOSECONDS.toMillis(tookNanos);
    if (took - c.deadlineMs > AssigndAssignor.OVERRUN_MS) {
      LOG.warn("assignd share assignor {}: a call held the coordinator's thread {} ms, past {}={}, {} ms of it in garbage collection",
          c.name, took, c.deadlineKey, c.deadlineMs, TimeUnit.NANOSECONDS.toMillis(gcNanos));
    }
  }

  private void logOnce(ShareConfig c, String kind, String message) {
    if (LOGGED.add(c.name + "\0" + kind + "\0" + message)) {
      MISCONFIGURATIONS_LOGGED.incrementAndGet();
      LOG.error("assignd share assignor {}: {}; every share assignment falls back to {} until it is fixed (logged once)",
          c.name, message, fallback.name());
    } else {
      LOG.debug("assignd share assignor {}: {}", c.name, message);
    }
  }
}
