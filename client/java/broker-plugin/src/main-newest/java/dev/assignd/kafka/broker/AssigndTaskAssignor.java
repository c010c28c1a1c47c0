package dev.assignd.kafka.broker;

import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.AssignTasksResponse;
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
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A KIP-1357 task assignor for Kafka Streams groups (KIP-1071) that takes
 * each group's tasks from assignd (AssignTasks), and computes them
 * in-process with the broker's built-in {@link StickyTaskAssignor} when
 * assignd does not answer in time or at all. List its class in the
 * broker's {@code group.streams.assignors}; a group uses it when it is
 * the first entry, or when the group config {@code streams.assignor.name}
 * names it ({@code assignd.streams.name}, default {@code assignd}).
 * docs/streams-share.md.
 *
 * <p>It is the consumer plugin ({@link AssigndAssignor}) for another kind
 * of group: the coordinator calls {@link #assign} on its event-processor
 * thread once per group epoch, so every call is bounded by
 * {@code assignd.streams.deadline.ms} (default {@code assignd.deadline.ms},
 * 500 ms), and after a call that timed out or found assignd unavailable or
 * overloaded it does not call again for {@code assignd.streams.backoff.ms}
 * (default {@code assignd.backoff.ms}, 5 s). It throws
 * {@link TaskAssignorException} only when the fallback itself fails; every
 * failure of assignd is counted ({@link PluginStats}, type
 * {@code AssigndTaskAssignor}) and logged, a misconfiguration once at ERROR.
 */
public class AssigndTaskAssignor implements TaskAssignor, Configurable {
  private static final Logger LOG = LoggerFactory.getLogger(AssigndTaskAssignor.class);
  /** Problems already logged at ERROR, by instance and problem: a misconfiguration is logged once. */
  private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();
  /** Misconfigurations logged at ERROR so far, for tests. */
  static final AtomicLong MISCONFIGURATIONS_LOGGED = new AtomicLong();

  private volatile TaskAssignorConfig cfg;
  private volatile PluginStats stats;
  private volatile Recorder recorder;
  private final TaskAssignor fallback = new StickyTaskAssignor();
  /** System.nanoTime() before which assignd is not called (backoff); 0: call. */
  private volatile long skipUntil;
  /** Whether the last attempt was a failure, so that recovery and new failures log once. */
  private volatile boolean failing;

  public AssigndTaskAssignor() {
    cfg = TaskAssignorConfig.defaults();
    stats = PluginStats.of(GroupType.STREAMS, cfg.name);
    stats.groupId(cfg.groupId);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    TaskAssignorConfig c = TaskAssignorConfig.from(configs);
    cfg = c;
    stats = PluginStats.of(GroupType.STREAMS, c.name);
    stats.groupId(c.groupId);
    recorder = c.recordFile == null ? null : new Recorder(c.recordFile);
    // The broker builds its coordinator configuration several times while
    // it starts: the settings are logged once.
    String settings = String.format("target %s, group id %s, assignor %s, deadline %d ms, backoff %d ms, fallback %s%s",
        c.channel.target(), c.groupId, c.assignor.isEmpty() ? "assignd's choice" : c.assignor, c.deadlineMs, c.backoffMs,
        fallback.name(), c.channel.tls() ? ", TLS" : "");
    if (LOGGED.add(c.name + "\0settings\0" + settings)) {
      LOG.info("assignd task assignor {}: {}", c.name, settings);
    }
    if (c.channel.target() == null) {
      logOnce(c, "misconfigured", "check " + PluginConfig.TARGET + ": " + PluginConfig.TARGET + " is not set");
      return;
    }
    try {
      // At the broker's start, not on the first group's call: a cold JVM
      // and a new connection cost seconds, several deadlines.
      Diagnosis d = TaskWarmUp.run(c, fallback);
      if (d != null && d.misconfigured()) {
        logOnce(c, d.reason().name(), "check " + d.property() + ": " + d.detail());
      } else if (d != null) {
        LOG.warn("assignd task assignor {}: assignd does not answer at the broker's start ({}): {}; tasks are assigned by {} until it does",
            c.name, d.reason(), d.detail(), fallback.name());
      }
    } catch (Misconfigured e) {
      logOnce(c, "misconfigured", "check " + e.property() + ": " + e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      // A broker whose API differs from the one built against: the first
      // assignment tells more; the broker's start must go on.
      LOG.warn("assignd task assignor {}: warming up failed: {}", c.name, e.toString(), e);
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
  public GroupAssignment assign(GroupSpec spec, TopologyDescriber topology) throws TaskAssignorException {
    long gcStart = JvmPauses.gcNanos();
    long start = System.nanoTime();
    TaskAssignorConfig c = cfg;
    if (spec.memberIds().isEmpty()) {
      stats.served(System.nanoTime() - start);
      return new GroupAssignment(Map.of());
    }
    long skip = skipUntil;
    if (skip != 0 && start - skip < 0) {
      return fallBack(c, FallbackReason.BACKOFF, null, null, spec, topology, start, gcStart);
    }
    TaskRequests.Built built = null;
    try {
      TaskCall.Result r = TaskCall.assignTasks(c.channel, () -> TaskRequests.build(c, spec, topology),
          start + TimeUnit.MILLISECONDS.toNanos(c.deadlineMs), skip != 0);
      built = r.built();
      AssignTasksResponse resp = r.response();
      if (r.invalid() != null) {
        LOG.warn("assignd task assignor {}: assignd's answer is not a valid assignment of the group: {}; assigning with {}",
            c.name, r.invalid().getMessage(), fallback.name());
        return fallBack(c, FallbackReason.BAD_RESPONSE, built.request(), resp, spec, topology, start, gcStart);
      }
      GroupAssignment out = r.assignment();
      long took = System.nanoTime() - start;
      long gc = JvmPauses.gcNanos() - gcStart;
      stats.served(took);
      overran(c, took, gc);
      skipUntil = 0;
      if (failing) {
        failing = false;
        LOG.info("assignd task assignor {}: assignd answers again", c.name);
      }
      if (LOG.isDebugEnabled()) {
        LOG.debug("assignd task assignor {}: {} members assigned by assignd ({}, {} moves) in {} µs",
            c.name, built.request().getMembersCount(), resp.getAssignor(), resp.getMoveCount(), took / 1000);
      }
      for (String w : resp.getWarningsList()) {
        LOG.debug("assignd task assignor {}: assignd warns: {}", c.name, w);
      }
      record(c, "SERVED", took, gc, built.request(), resp, out);
      return out;
    } catch (Misconfigured e) {
      logOnce(c, "misconfigured", "check " + e.property() + ": " + e.getMessage());
      return fallBack(c, FallbackReason.MISCONFIGURED, request(built), null, spec, topology, start, gcStart);
    } catch (StatusRuntimeException e) {
      return failed(c, e, request(built), spec, topology, start, gcStart);
    } catch (RuntimeException e) {
      LOG.warn("assignd task assignor {}: unexpected failure: {}; assigning with {}", c.name, e.toString(), fallback.name(), e);
      return fallBack(c, FallbackReason.OTHER, request(built), null, spec, topology, start, gcStart);
    }
  }

  private static AssignTasksRequest request(TaskRequests.Built b) {
    return b == null ? null : b.request();
  }

  private GroupAssignment failed(TaskAssignorConfig c, StatusRuntimeException e, AssignTasksRequest req,
      GroupSpec spec, TopologyDescriber topology, long start, long gcStart) {
    Diagnosis d = Diagnosis.of(e, c.deadlineKey, c.deadlineMs);
    if (d.misconfigured()) {
      logOnce(c, d.reason().name(), "check " + d.property() + ": " + d.detail());
    } else if (d.reason() == FallbackReason.INVALID_ARGUMENT) {
      LOG.error("assignd task assignor {}: assignd refused the request: {}; assigning with {}", c.name, d.detail(), fallback.name());
    } else if (d.backOff()) {
      logTransient(c, d.reason(), d.detail());
    } else {
      LOG.warn("assignd task assignor {}: assignd failed: {}; assigning with {}", c.name, d.detail(), fallback.name());
    }
    if (d.backOff() && c.backoffMs > 0) {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(c.backoffMs);
      skipUntil = until == 0 ? 1 : until;
    }
    return fallBack(c, d.reason(), req, null, spec, topology, start, gcStart);
  }

  /** A failure that may pass: WARN when it starts, DEBUG while it lasts. */
  private void logTransient(TaskAssignorConfig c, FallbackReason reason, String what) {
    if (!failing) {
      failing = true;
      LOG.warn("assignd task assignor {}: assignd failed ({}): {}; assigning with {} and not calling assignd for {} ms",
          c.name, reason, what, fallback.name(), c.backoffMs);
    } else {
      LOG.debug("assignd task assignor {}: assignd still failing ({}): {}", c.name, reason, what);
    }
  }

  private GroupAssignment fallBack(TaskAssignorConfig c, FallbackReason reason, AssignTasksRequest req, AssignTasksResponse resp,
      GroupSpec spec, TopologyDescriber topology, long start, long gcStart) {
    GroupAssignment out;
    try {
      out = fallback.assign(spec, topology);
    } catch (TaskAssignorException e) {
      stats.failed();
      throw e;
    } catch (RuntimeException e) {
      stats.failed();
      throw new TaskAssignorException("assignd task assignor " + c.name + ": the fallback " + fallback.name() + " failed too: " + e, e);
    }
    long took = System.nanoTime() - start;
    long gc = JvmPauses.gcNanos() - gcStart;
    stats.fellBack(reason, took);
    overran(c, took, gc);
    // The broker logs "with '…AssigndTaskAssignor@…' assignor" either way:
    // say who computed it (within a backoff, the WARN that started it did).
    if (reason != FallbackReason.BACKOFF || LOG.isDebugEnabled()) {
      String line = "assignd task assignor {} (group {}): the tasks of {} members were assigned by {}, not assignd ({}), in {} µs";
      Object[] args = {c.name, c.groupId, spec.memberIds().size(), fallback.name(), reason, took / 1000};
      if (reason == FallbackReason.BACKOFF) {
        LOG.debug(line, args);
      } else {
        LOG.info(line, args);
      }
    }
    record(c, reason.name(), took, gc, req, resp, out);
    return out;
  }

  /**
   * A call that held the coordinator's thread well past its deadline
   * ({@link AssigndAssignor#OVERRUN_MS}): the JVM was stopped or short of
   * CPU, as the consumer plugin says of its own calls.
   */
  private static void overran(TaskAssignorConfig c, long tookNanos, long gcNanos) {
    long over = TimeUnit.NANOSECONDS.toMillis(tookNanos - gcNanos) - c.deadlineMs;
    if (TimeUnit.NANOSECONDS.toMillis(tookNanos) - c.deadlineMs > AssigndAssignor.OVERRUN_MS) {
      LOG.warn("assignd task assignor {}: a call held the coordinator's thread {} ms, past {}={}; the broker's JVM was stopped for "
          + "garbage collection {} ms of it, and the rest, {} ms past the deadline, is time the thread waited for a CPU",
          c.name, TimeUnit.NANOSECONDS.toMillis(tookNanos), c.deadlineKey, c.deadlineMs,
          TimeUnit.NANOSECONDS.toMillis(gcNanos), Math.max(0, over));
    }
  }

  private void logOnce(TaskAssignorConfig c, String kind, String message) {
    if (LOGGED.add(c.name + "\0" + kind + "\0" + message)) {
      MISCONFIGURATIONS_LOGGED.incrementAndGet();
      LOG.error("assignd task assignor {}: {}; every task assignment falls back to {} until it is fixed (logged once)",
          c.name, message, fallback.name());
    } else {
      LOG.debug("assignd task assignor {}: {}", c.name, message);
    }
  }

  private void record(TaskAssignorConfig c, String outcome, long nanos, long gcNanos, AssignTasksRequest req,
      AssignTasksResponse resp, GroupAssignment applied) {
    Recorder r = recorder;
    if (r != null) {
      r.record(c.name, outcome, nanos, gcNanos, req, resp, TaskRequests.encode(applied));
    }
  }
}
