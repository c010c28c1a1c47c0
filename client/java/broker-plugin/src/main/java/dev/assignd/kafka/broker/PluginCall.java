package dev.assignd.kafka.broker;

import assignd.v1.AssignmentServiceGrpc.AssignmentServiceBlockingStub;
import com.google.protobuf.MessageLite;
import dev.assignd.common.Diagnosis;
import dev.assignd.common.FallbackReason;
import dev.assignd.common.Misconfigured;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * The life of one plugin object's calls, the same for every kind of group
 * (consumer, Streams, share): the settings logged and the warm-up diagnosed
 * at {@code configure}, then per assignment the backoff, the bounded call
 * ({@link BoundedCall}), the fallback, the counts ({@link PluginStats}),
 * the record ({@link Recorder}) and the log lines. The plugin gives what
 * differs: its {@link Kind} (its words, the exception its coordinator
 * expects), its {@link Rpc}, and per call the request builder and the
 * fallback.
 *
 * <p>The coordinator's thread does only bounded in-memory work after its
 * wait: every log line of a call is handed to the plugin's I/O thread
 * ({@link OffThread}), as the record is.
 *
 * @param <C> the plugin's settings
 * @param <B> the request, as built from the group
 * @param <R> assignd's answer
 * @param <O> the assignment returned to the coordinator
 */
final class PluginCall<C extends CallConfig, B extends PluginCall.Built, R extends MessageLite, O> {
  /** What a call may take past its deadline: the fallback, a log line. */
  static final long OVERRUN_MS = 50;

  /** A request built from the group: the message sent, which the record keeps. */
  interface Built {
    MessageLite request();
  }

  /**
   * What one kind of plugin sends and reads.
   *
   * @param send the RPC, on a stub with the call's deadline
   * @param read the assignment in an answer; throws when the answer is not a valid one
   *     ({@link Requests.NotTarget}: an assignd too old, a misconfiguration)
   * @param encode the returned assignment as the record file keeps it
   * @param summary what the DEBUG line of a served call says of the answer ("sticky@1, policy p")
   * @param warnings the answer's warnings, logged at DEBUG
   * @param empty the assignment of a group without members (immutable: every such call returns it)
   */
  record Rpc<B, R, O>(BiFunction<AssignmentServiceBlockingStub, B, R> send, BiFunction<B, R, O> read,
      Function<O, MessageLite> encode, Function<R, String> summary, Function<R, List<String>> warnings, O empty) {}

  /**
   * One plugin class: its log, its words and the exception its coordinator
   * expects. A problem is logged at ERROR once per instance name and
   * problem, across the objects the broker makes.
   */
  static final class Kind {
    final GroupType type;
    final Logger log;
    final String label;
    final String what;
    final Class<? extends RuntimeException> failure;
    final BiFunction<String, Throwable, RuntimeException> newFailure;
    final AtomicLong misconfigurationsLogged;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /**
     * @param label how its lines begin ("assignd plugin")
     * @param what what a call computes, in its lines ("target")
     * @param failure what the coordinator expects when no assignment can be made
     * @param newFailure makes one, for a fallback that fails
     * @param misconfigurationsLogged counts the misconfigurations logged at ERROR, for tests
     */
    Kind(GroupType type, Logger log, String label, String what, Class<? extends RuntimeException> failure,
        BiFunction<String, Throwable, RuntimeException> newFailure, AtomicLong misconfigurationsLogged) {
      this.type = type;
      this.log = log;
      this.label = label;
      this.what = what;
      this.failure = failure;
      this.newFailure = newFailure;
      this.misconfigurationsLogged = misconfigurationsLogged;
    }
  }

  /** One configuration: the settings, the counts of the instance's name, the recorder, the fallback's name. */
  private record Setup<C>(C cfg, PluginStats stats, Recorder recorder, String fallback) {}

  private final Kind kind;
  private final Rpc<B, R, O> rpc;
  private volatile Setup<C> setup;
  /** System.nanoTime() before which assignd is not called (backoff); 0: call. */
  private volatile long skipUntil;
  /** Whether the last attempt was a failure, so that recovery and new failures log once. */
  private volatile boolean failing;
  /** Assignments the fallback computed since failing began, said when assignd answers again. */
  private final AtomicLong fallbacksWhileFailing = new AtomicLong();

  /** A call with the default settings c (the coordinator may ask the name before configure). */
  PluginCall(Kind kind, Rpc<B, R, O> rpc, C c, String fallback) {
    this.kind = kind;
    this.rpc = rpc;
    this.setup = setup(kind, c, fallback);
  }

  private static <C extends CallConfig> Setup<C> setup(Kind kind, C c, String fallback) {
    PluginStats stats = PluginStats.of(kind.type, c.name);
    stats.groupId(c.groupId);
    return new Setup<>(c, stats, c.recordFile == null ? null : new Recorder(c.recordFile), fallback);
  }

  C config() {
    return setup.cfg();
  }

  PluginStats stats() {
    return setup.stats();
  }

  /**
   * Takes c, logs it once (the broker builds its coordinator configuration
   * several times while it starts, configuring a new object each time),
   * and warms up now, at the broker's start: the first assignment must not
   * pay for a cold JVM or a new connection, and a wrong target shows here.
   *
   * @param fallback the fallback's name
   * @param warmUp warms the paths of a call for c; what it found wrong, or null
   */
  void configure(C c, String fallback, Function<C, Diagnosis> warmUp) {
    setup = setup(kind, c, fallback);
    String settings = String.format("target %s, group id %s, %s, deadline %d ms, backoff %d ms, fallback %s%s",
        c.channel.target(), c.groupId, c.describe(), c.deadlineMs, c.backoffMs, fallback, c.channel.tls() ? ", TLS" : "");
    if (kind.logged.add(c.name + "\0settings\0" + settings)) {
      kind.log.info("{} {}: {}", kind.label, c.name, settings);
    }
    if (c.channel.target() == null) {
      logOnce(c, fallback, "misconfigured", "check " + PluginConfig.TARGET + ": " + PluginConfig.TARGET + " is not set");
      return;
    }
    try {
      Diagnosis d = warmUp.apply(c);
      if (d != null && d.misconfigured()) {
        logOnce(c, fallback, d.reason().name(), "check " + d.property() + ": " + d.detail());
      } else if (d != null) {
        kind.log.warn("{} {}: assignd does not answer at the broker's start ({}): {}; assignments fall back to {} until it does",
            kind.label, c.name, d.reason(), d.detail(), fallback);
      }
    } catch (Misconfigured e) {
      logOnce(c, fallback, "misconfigured", "check " + e.property() + ": " + e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      // A broker whose API differs from the one built against: the first
      // assignment tells more; the broker's start must go on.
      kind.log.warn("{} {}: warming up failed: {}", kind.label, c.name, e.toString(), e);
    }
  }

  /**
   * One assignment: assignd's, when it answers by the deadline with a
   * valid one; else the fallback's, counted by reason.
   *
   * @param members the group's size; 0: empty is returned, nothing asked
   * @param request builds the request from the settings (on the call's thread)
   * @param fallback the fallback's assignment of the same group, under the same settings
   */
  O assign(int members, Function<C, B> request, Function<C, O> fallback) {
    Attempt a = new Attempt(setup, members, fallback);
    if (members == 0) {
      a.s.stats().served(System.nanoTime() - a.start);
      return rpc.empty();
    }
    long skip = skipUntil;
    if (skip != 0 && a.start - skip < 0) {
      return a.fallBack(FallbackReason.BACKOFF);
    }
    C c = a.s.cfg();
    try {
      BoundedCall.Result<B, R, O> r = BoundedCall.call(c.channel, () -> request.apply(c), rpc.send(), rpc.read(),
          a.start + TimeUnit.MILLISECONDS.toNanos(c.deadlineMs), skip != 0);
      a.built = r.built();
      a.resp = r.response();
      if (r.invalid() instanceof Requests.NotTarget e) {
        logOnce(c, a.s.fallback(), "not-target", "check " + PluginConfig.TARGET + ": " + e.getMessage());
        return a.fallBack(FallbackReason.MISCONFIGURED);
      } else if (r.invalid() != null) {
        String why = r.invalid().getMessage();
        log(l -> l.warn("{} {}: assignd's answer is not a valid assignment of the group: {}; assigning with {}",
            kind.label, c.name, why, a.s.fallback()));
        return a.fallBack(FallbackReason.BAD_RESPONSE);
      }
      return a.served(r.assignment());
    } catch (Misconfigured e) {
      logOnce(c, a.s.fallback(), "misconfigured", "check " + e.property() + ": " + e.getMessage());
      return a.fallBack(FallbackReason.MISCONFIGURED);
    } catch (StatusRuntimeException e) {
      return a.failed(e);
    } catch (RuntimeException e) {
      log(l -> l.warn("{} {}: unexpected failure: {}; assigning with {}", kind.label, c.name, e.toString(), a.s.fallback(), e));
      return a.fallBack(FallbackReason.OTHER);
    }
  }

  /** One assignment's state, from the coordinator's call to the plugin's return. */
  private final class Attempt {
    final long gcStart = JvmPauses.gcNanos();
    final long start = System.nanoTime();
    final Setup<C> s;
    final int members;
    final Function<C, O> fallback;
    /** The request sent and assignd's answer, when there were any. */
    B built;
    R resp;

    Attempt(Setup<C> s, int members, Function<C, O> fallback) {
      this.s = s;
      this.members = members;
      this.fallback = fallback;
    }

    O served(O out) {
      C c = s.cfg();
      long took = System.nanoTime() - start;
      long gc = JvmPauses.gcNanos() - gcStart;
      s.stats().served(took);
      overran(c, took, gc);
      skipUntil = 0;
      if (failing) {
        failing = false;
        long missed = fallbacksWhileFailing.getAndSet(0);
        log(l -> l.info("{} {}: assignd answers again; {} {}s were computed by {} meanwhile",
            kind.label, c.name, missed, kind.what, s.fallback()));
      }
      if (kind.log.isDebugEnabled()) {
        R answer = resp;
        log(l -> {
          l.debug("{} {}: {} members assigned by assignd ({}) in {} µs", kind.label, c.name, members, rpc.summary().apply(answer),
              took / 1000);
          for (String w : rpc.warnings().apply(answer)) {
            l.debug("{} {}: assignd warns: {}", kind.label, c.name, w);
          }
        });
      }
      record("SERVED", took, gc, out);
      return out;
    }

    O failed(StatusRuntimeException e) {
      C c = s.cfg();
      Diagnosis d = Diagnosis.of(e, c.deadlineKey, c.deadlineMs);
      if (d.misconfigured()) {
        logOnce(c, s.fallback(), d.reason().name(), "check " + d.property() + ": " + d.detail());
      } else if (d.reason() == FallbackReason.INVALID_ARGUMENT) {
        log(l -> l.error("{} {}: assignd refused the request: {}; assigning with {}", kind.label, c.name, d.detail(), s.fallback()));
      } else if (d.backOff() && !failing) {
        // A failure that may pass: WARN when it starts, DEBUG while it lasts.
        failing = true;
        log(l -> l.warn("{} {}: assignd failed ({}): {}; assigning with {} and not calling assignd for {} ms",
            kind.label, c.name, d.reason(), d.detail(), s.fallback(), c.backoffMs));
      } else if (d.backOff()) {
        if (kind.log.isDebugEnabled()) {
          log(l -> l.debug("{} {}: assignd still failing ({}): {}", kind.label, c.name, d.reason(), d.detail()));
        }
      } else {
        log(l -> l.warn("{} {}: assignd failed: {}; assigning with {}", kind.label, c.name, d.detail(), s.fallback()));
      }
      if (d.backOff() && c.backoffMs > 0) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(c.backoffMs);
        skipUntil = until == 0 ? 1 : until;
      }
      return fallBack(d.reason());
    }

    O fallBack(FallbackReason reason) {
      C c = s.cfg();
      O out;
      try {
        out = fallback.apply(c);
      } catch (RuntimeException e) {
        s.stats().failed();
        if (kind.failure.isInstance(e)) {
          throw e;
        }
        throw kind.newFailure.apply(kind.label + " " + c.name + ": the fallback " + s.fallback() + " failed too: " + e, e);
      }
      long took = System.nanoTime() - start;
      long gc = JvmPauses.gcNanos() - gcStart;
      s.stats().fellBack(reason, took);
      if (failing) {
        fallbacksWhileFailing.incrementAndGet();
      }
      overran(c, took, gc);
      // The broker logs the assignor it chose either way: say who computed
      // it (within a backoff, the WARN that started it said so).
      if (reason != FallbackReason.BACKOFF || kind.log.isDebugEnabled()) {
        String line = "{} {} (group {}): the {} of {} members was computed by {}, not assignd ({}), in {} µs";
        Object[] args = {kind.label, c.name, c.groupId, kind.what, members, s.fallback(), reason, took / 1000};
        log(reason == FallbackReason.BACKOFF ? l -> l.debug(line, args) : l -> l.info(line, args));
      }
      record(reason.name(), took, gc, out);
      return out;
    }

    private void record(String outcome, long nanos, long gcNanos, O applied) {
      Recorder r = s.recorder();
      if (r != null) {
        r.record(s.cfg().name, outcome, nanos, gcNanos, built == null ? null : built.request(), resp, rpc.encode().apply(applied));
      }
    }
  }

  /**
   * A call that held the coordinator's thread well past its deadline
   * could not have spent it in the plugin's own work, which after the wait
   * takes milliseconds: the broker's JVM was stopped (a garbage collection
   * stops every thread, the built-in assignors' too) or short of CPU. Said
   * with the collections' share, since the broker's own line shows only
   * the total.
   */
  private void overran(C c, long tookNanos, long gcNanos) {
    long over = TimeUnit.NANOSECONDS.toMillis(tookNanos - gcNanos) - c.deadlineMs;
    if (TimeUnit.NANOSECONDS.toMillis(tookNanos) - c.deadlineMs > OVERRUN_MS) {
      log(l -> l.warn("{} {}: a call held the coordinator's thread {} ms, past {}={}; the broker's JVM was stopped for garbage "
          + "collection {} ms of it, and the rest, {} ms past the deadline, is time the thread waited for a CPU",
          kind.label, c.name, TimeUnit.NANOSECONDS.toMillis(tookNanos), c.deadlineKey, c.deadlineMs,
          TimeUnit.NANOSECONDS.toMillis(gcNanos), Math.max(0, over)));
    }
  }

  private void logOnce(C c, String fallback, String problem, String message) {
    if (kind.logged.add(c.name + "\0" + problem + "\0" + message)) {
      kind.misconfigurationsLogged.incrementAndGet();
      log(l -> l.error("{} {}: {}; every assignment falls back to {} until it is fixed (logged once)",
          kind.label, c.name, message, fallback));
    } else if (kind.log.isDebugEnabled()) {
      log(l -> l.debug("{} {}: {}", kind.label, c.name, message));
    }
  }

  /** Logs on the plugin's I/O thread, never on the coordinator's. */
  private void log(Consumer<Logger> line) {
    Logger l = kind.log;
    OffThread.run(() -> line.accept(l));
  }
}
