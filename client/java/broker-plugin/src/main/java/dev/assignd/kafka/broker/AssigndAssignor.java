package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
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
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A KIP-848 server-side assignor that takes each consumer group's target
 * assignment from assignd, and computes it in-process with the broker's
 * built-in {@code uniform} (or {@code range}) when assignd does not answer
 * in time or at all. List it in the broker's {@code group.consumer.assignors}
 * and select it from a consumer with {@code group.remote.assignor=assignd}
 * (its default name, {@code assignd.assignor.1.name}). docs/kip848-plugin.md.
 *
 * <p>The coordinator calls {@link #assign} on its event-processor thread
 * (one of {@code group.coordinator.threads}) while it handles the heartbeat
 * that changed the group, and every group whose offsets partition that
 * thread serves waits meanwhile. So every call is bounded by
 * {@code assignd.deadline.ms} (default 500 ms), and after a call that timed
 * out or found assignd unavailable or overloaded the plugin does not call
 * again for {@code assignd.backoff.ms} (default 5 s): a dead or hung assignd
 * costs one deadline per backoff, not one per heartbeat.
 *
 * <p>After its wait ends, at the deadline at the latest, the coordinator's
 * thread does only bounded in-memory work: it cancels the call (an
 * interrupt of the call's thread), classifies the failure, runs the
 * fallback on the same input and counts the outcome. Every log line and
 * the record file are handed to the plugin's I/O thread ({@link OffThread}),
 * so that a slow disk never holds a coordinator thread.
 *
 * <p>It throws {@link PartitionAssignorException} only when the fallback
 * itself fails; every failure of assignd is counted ({@link PluginStats})
 * and logged, a misconfiguration once at ERROR.
 *
 * <p>Several instances: the coordinator makes one object per class listed,
 * so {@link AssigndAssignor2}, {@link AssigndAssignor3} and
 * {@link AssigndAssignor4} are the same assignor in slots 2 to 4, each with
 * its own name, protocol name and group label.
 */
public class AssigndAssignor implements ConsumerGroupPartitionAssignor, Configurable {
  private static final Logger LOG = LoggerFactory.getLogger(AssigndAssignor.class);
  /** Problems already logged at ERROR, by instance and problem: a misconfiguration is logged once. */
  private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();
  /** Misconfigurations logged at ERROR so far, for tests. */
  static final AtomicLong MISCONFIGURATIONS_LOGGED = new AtomicLong();
  private static volatile Recorder recorder;

  private final int slot;
  private volatile PluginConfig cfg;
  private volatile PluginStats stats;
  private volatile ConsumerGroupPartitionAssignor fallback;
  /** System.nanoTime() before which assignd is not called (backoff); 0: call. */
  private volatile long skipUntil;
  /** Whether the last attempt was a failure, so that recovery and new failures log once. */
  private volatile boolean failing;
  /** Targets the fallback computed since failing began, said when assignd answers again. */
  private final AtomicLong fallbacksWhileFailing = new AtomicLong();

  /** Slot 1: settings under {@code assignd.assignor.1.}, default name {@code assignd}. */
  public AssigndAssignor() {
    this(1);
  }

  /** For the other slots' classes. */
  protected AssigndAssignor(int slot) {
    this.slot = slot;
    this.cfg = PluginConfig.defaults(slot);
    this.stats = PluginStats.of(cfg.name);
    this.stats.groupId(cfg.groupId);
    this.fallback = builtin(cfg.fallback);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    PluginConfig c = PluginConfig.from(slot, configs);
    cfg = c;
    stats = PluginStats.of(c.name);
    stats.groupId(c.groupId);
    fallback = builtin(c.fallback);
    if (c.recordFile != null) {
      recorder = new Recorder(c.recordFile);
    }
    // The broker builds its group coordinator configuration several times
    // while it starts (ten times, on 4.1.1), configuring a new object each
    // time: the settings are logged once.
    String settings = String.format("target %s, protocol name %s, group id %s, deadline %d ms, backoff %d ms, fallback %s%s",
        c.channel.target(), c.protocol, c.groupId, c.deadlineMs, c.backoffMs, fallback.name(), c.channel.tls() ? ", TLS" : "");
    if (LOGGED.add(c.name + "\0settings\0" + settings)) {
      LOG.info("assignd plugin {} (slot {}): {}", c.name, slot, settings);
    }
    if (c.channel.target() == null) {
      logOnce(c, "misconfigured", "check " + PluginConfig.TARGET + ": " + PluginConfig.TARGET + " is not set");
      return;
    }
    try {
      // Warm up now, at the broker's start: the first assignment must not
      // pay for a cold JVM or a connection, and a wrong target shows here.
      Diagnosis d = WarmUp.run(c, fallback);
      if (d != null && d.misconfigured()) {
        logOnce(c, d.reason().name(), "check " + d.property() + ": " + d.detail());
      } else if (d != null) {
        LOG.warn("assignd plugin {}: assignd does not answer at the broker's start ({}): {}; assignments fall back to {} until it does",
            c.name, d.reason(), d.detail(), fallback.name());
      }
    } catch (Misconfigured e) {
      logOnce(c, "misconfigured", "check " + e.property() + ": " + e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      // A broker whose API differs from the one built against: the first
      // assignment tells more; the broker's start must go on.
      LOG.warn("assignd plugin {}: warming up failed: {}", c.name, e.toString(), e);
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
    PluginConfig c = cfg;
    if (spec.memberIds().isEmpty()) {
      stats.served(System.nanoTime() - start);
      return new GroupAssignment(Map.of());
    }
    long skip = skipUntil;
    if (skip != 0 && start - skip < 0) {
      return fallBack(c, FallbackReason.BACKOFF, null, null, spec, topics, start, gcStart);
    }
    Requests.Built built = null;
    try {
      BoundedCall.Result r = BoundedCall.assign(c.channel, () -> Requests.build(c.groupId, c.protocol, spec, topics),
          start + TimeUnit.MILLISECONDS.toNanos(c.deadlineMs), skip != 0);
      built = r.built();
      AssignResponse resp = r.response();
      GroupAssignment out = r.assignment();
      if (r.invalid() instanceof Requests.NotTarget e) {
        logOnce(c, "not-target", "check " + PluginConfig.TARGET + ": " + e.getMessage());
        return fallBack(c, FallbackReason.MISCONFIGURED, built.request(), resp, spec, topics, start, gcStart);
      } else if (r.invalid() != null) {
        String why = r.invalid().getMessage();
        String fb = fallback.name();
        OffThread.run(() -> LOG.warn("assignd plugin {}: assignd's answer is not a valid assignment of the group: {}; assigning with {}",
            c.name, why, fb));
        return fallBack(c, FallbackReason.BAD_RESPONSE, built.request(), resp, spec, topics, start, gcStart);
      }
      long took = System.nanoTime() - start;
      long gc = JvmPauses.gcNanos() - gcStart;
      stats.served(took);
      overran(c, took, gc);
      skipUntil = 0;
      if (failing) {
        failing = false;
        long missed = fallbacksWhileFailing.getAndSet(0);
        String fb = fallback.name();
        OffThread.run(() -> LOG.info("assignd plugin {}: assignd answers again; {} targets were computed by {} meanwhile",
            c.name, missed, fb));
      }
      if (LOG.isDebugEnabled()) {
        int members = built.request().getMembersCount();
        OffThread.run(() -> {
          LOG.debug("assignd plugin {}: {} members assigned by assignd ({}@{}, policy {}) in {} µs",
              c.name, members, resp.getAssignor(), resp.getAssignorVersion(), resp.getPolicy(), took / 1000);
          for (String w : resp.getWarningsList()) {
            LOG.debug("assignd plugin {}: assignd warns: {}", c.name, w);
          }
        });
      }
      record(c, "SERVED", took, gc, built.request(), resp, out);
      return out;
    } catch (Misconfigured e) {
      logOnce(c, "misconfigured", "check " + e.property() + ": " + e.getMessage());
      return fallBack(c, FallbackReason.MISCONFIGURED, request(built), null, spec, topics, start, gcStart);
    } catch (StatusRuntimeException e) {
      return failed(c, e, request(built), spec, topics, start, gcStart);
    } catch (RuntimeException e) {
      String fb = fallback.name();
      OffThread.run(() -> LOG.warn("assignd plugin {}: unexpected failure: {}; assigning with {}", c.name, e.toString(), fb, e));
      return fallBack(c, FallbackReason.OTHER, request(built), null, spec, topics, start, gcStart);
    }
  }

  private static AssignRequest request(Requests.Built b) {
    return b == null ? null : b.request();
  }

  private GroupAssignment failed(PluginConfig c, StatusRuntimeException e, AssignRequest req,
      GroupSpec spec, SubscribedTopicDescriber topics, long start, long gcStart) {
    Diagnosis d = Diagnosis.of(e, PluginConfig.DEADLINE_MS, c.deadlineMs);
    String fb = fallback.name();
    if (d.misconfigured()) {
      logOnce(c, d.reason().name(), "check " + d.property() + ": " + d.detail());
    } else if (d.reason() == FallbackReason.INVALID_ARGUMENT) {
      OffThread.run(() -> LOG.error("assignd plugin {}: assignd refused the request: {}; assigning with {}", c.name, d.detail(), fb));
    } else if (d.backOff()) {
      logTransient(c, d.reason(), d.detail());
    } else {
      OffThread.run(() -> LOG.warn("assignd plugin {}: assignd failed: {}; assigning with {}", c.name, d.detail(), fb));
    }
    if (d.backOff() && c.backoffMs > 0) {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(c.backoffMs);
      skipUntil = until == 0 ? 1 : until;
    }
    return fallBack(c, d.reason(), req, null, spec, topics, start, gcStart);
  }

  /** A failure that may pass: WARN when it starts, DEBUG while it lasts. */
  private void logTransient(PluginConfig c, FallbackReason reason, String what) {
    String fb = fallback.name();
    if (!failing) {
      failing = true;
      OffThread.run(() -> LOG.warn("assignd plugin {}: assignd failed ({}): {}; assigning with {} and not calling assignd for {} ms",
          c.name, reason, what, fb, c.backoffMs));
    } else if (LOG.isDebugEnabled()) {
      OffThread.run(() -> LOG.debug("assignd plugin {}: assignd still failing ({}): {}", c.name, reason, what));
    }
  }

  private GroupAssignment fallBack(PluginConfig c, FallbackReason reason, AssignRequest req, AssignResponse resp,
      GroupSpec spec, SubscribedTopicDescriber topics, long start, long gcStart) {
    ConsumerGroupPartitionAssignor fb = fallback;
    GroupAssignment out;
    try {
      out = fb.assign(spec, topics);
    } catch (PartitionAssignorException e) {
      stats.failed();
      throw e;
    } catch (RuntimeException e) {
      stats.failed();
      throw new PartitionAssignorException("assignd plugin " + c.name + ": the fallback " + fb.name() + " failed too: " + e, e);
    }
    long took = System.nanoTime() - start;
    long gc = JvmPauses.gcNanos() - gcStart;
    stats.fellBack(reason, took);
    if (failing) {
      fallbacksWhileFailing.incrementAndGet();
    }
    overran(c, took, gc);
    // The broker logs "with 'assignd' assignor" either way: say who
    // computed it (within a backoff, the WARN that started it said so).
    if (reason != FallbackReason.BACKOFF || LOG.isDebugEnabled()) {
      String line = "assignd plugin {} (group {}): the target of {} members was computed by {}, not assignd ({}), in {} µs";
      Object[] args = {c.name, c.groupId, spec.memberIds().size(), fb.name(), reason, took / 1000};
      if (reason == FallbackReason.BACKOFF) {
        OffThread.run(() -> LOG.debug(line, args));
      } else {
        OffThread.run(() -> LOG.info(line, args));
      }
    }
    record(c, reason.name(), took, gc, req, resp, out);
    return out;
  }

  /** What a call may take past its deadline: the fallback, a log line. */
  static final long OVERRUN_MS = 50;

  /**
   * A call that held the coordinator's thread well past its deadline
   * could not have spent it in the plugin's own work, which after the wait
   * takes milliseconds: the broker's JVM was stopped (a garbage collection
   * stops every thread, the built-in assignors' too) or short of CPU. Said
   * with the collections' share, since the broker's own line shows only
   * the total.
   */
  private static void overran(PluginConfig c, long tookNanos, long gcNanos) {
    long over = TimeUnit.NANOSECONDS.toMillis(tookNanos - gcNanos) - c.deadlineMs;
    if (TimeUnit.NANOSECONDS.toMillis(tookNanos) - c.deadlineMs > OVERRUN_MS) {
      OffThread.run(() -> LOG.warn("assignd plugin {}: a call held the coordinator's thread {} ms, past {}={}; the broker's JVM was stopped for garbage "
          + "collection {} ms of it, and the rest, {} ms past the deadline, is time the thread waited for a CPU",
          c.name, TimeUnit.NANOSECONDS.toMillis(tookNanos), PluginConfig.DEADLINE_MS, c.deadlineMs,
          TimeUnit.NANOSECONDS.toMillis(gcNanos), Math.max(0, over)));
    }
  }

  private void logOnce(PluginConfig c, String kind, String message) {
    String fb = fallback.name();
    if (LOGGED.add(c.name + "\0" + kind + "\0" + message)) {
      MISCONFIGURATIONS_LOGGED.incrementAndGet();
      OffThread.run(() -> LOG.error("assignd plugin {}: {}; every assignment falls back to {} until it is fixed (logged once)",
          c.name, message, fb));
    } else if (LOG.isDebugEnabled()) {
      OffThread.run(() -> LOG.debug("assignd plugin {}: {}", c.name, message));
    }
  }

  private static void record(PluginConfig c, String outcome, long nanos, long gcNanos, AssignRequest req, AssignResponse resp,
      GroupAssignment applied) {
    Recorder r = recorder;
    if (r != null) {
      r.record(c.name, outcome, nanos, gcNanos, req, resp, applied);
    }
  }

  static ConsumerGroupPartitionAssignor builtin(PluginConfig.Builtin b) {
    return b == PluginConfig.Builtin.RANGE ? new RangeAssignor() : new UniformAssignor();
  }
}
