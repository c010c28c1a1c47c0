package dev.assignd.oracle;

import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import dev.assignd.oracle.Chains.Event;
import dev.assignd.oracle.Group.MemberSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.common.TopicPartition;

/**
 * Plays a chain on both sides. Each side keeps what its own answers gave
 * its members (owned partitions, generations, and the round before's, for
 * a member that reports a stale generation), as real members would report
 * them; a cooperative round runs its follow-ups at once, by the Java
 * client's rule (a member that lost a partition revokes it and rejoins,
 * ConsumerCoordinator.onJoinComplete), until nobody loses one. Each round
 * is also played in lockstep: assignd is asked on Java's own input of that
 * round, and both settled results are compared.
 */
final class ChainRunner {
    /** Follow-ups after which a round counts as never settling. */
    static final int MAX_FOLLOWUPS = 8;

    /** A side: Java's assignor, or assignd over gRPC. */
    interface Side {
        /** The plan for g; followupRequired is assignd's flag (Java has none: false). */
        Answer assign(Group g) throws TimeoutException;
    }

    record Answer(Map<String, List<TopicPartition>> plan, boolean followupRequired) {
    }

    /** A round played to its end on one side. */
    record Settled(Group start, Map<String, List<TopicPartition>> plan, Map<String, List<TopicPartition>> first,
                   int followups, boolean livelock, List<String> violations, Group invalidGroup, long nanos,
                   int noopRejoins, Group noopExample, int calls) {
        Plans.Quality quality() {
            return Plans.quality(start, plan, Plans.validOwners(start));
        }

        int rack() {
            return Tally.rackMatches(start, plan);
        }

        /** Partitions assigned to a member on a rack that none of their replicas is on. */
        int offRack() {
            return Tally.onRack(start, plan, false);
        }
    }

    /**
     * What one side's members own, as they report it, and what they owned
     * when the last round started (a stale member reports that, at that
     * generation: it missed the round's generations, KIP-792).
     */
    static final class SideState {
        Map<String, List<TopicPartition>> owned = new HashMap<>();
        Map<String, Integer> gen = new HashMap<>();
        Map<String, List<TopicPartition>> prevOwned = new HashMap<>();
        Map<String, Integer> prevGen = new HashMap<>();
        int generation;

        /** The group as the members report it; stale members report the round before's. */
        Group group(String protocol, Chains.Model m, Set<String> stale) {
            List<MemberSpec> ms = new ArrayList<>();
            for (MemberSpec s : m.members) {
                boolean st = stale.contains(s.id()) && prevGen.containsKey(s.id());
                List<TopicPartition> o = st ? prevOwned.get(s.id()) : owned.getOrDefault(s.id(), List.of());
                int g = st ? prevGen.get(s.id()) : gen.getOrDefault(s.id(), -1);
                if ("cooperative-sticky".equals(protocol)) {
                    // A cooperative member revokes what it owns of topics it
                    // no longer subscribes to before it rejoins
                    // (ConsumerCoordinator.onJoinPrepare), and reports the rest.
                    o = o.stream().filter(tp -> s.topics().contains(tp.topic())).toList();
                }
                ms.add(s.withOwned(o, g));
            }
            return new Group(protocol, m.topics, ms);
        }

        /**
         * A round starts: what the members own now is what a member that
         * misses this round's generations will report in the next one.
         */
        void roundStarts() {
            prevOwned = new HashMap<>(owned);
            prevGen = new HashMap<>(gen);
        }

        /** The members learn plan at the next generation. */
        void learn(Group g, Map<String, List<TopicPartition>> plan) {
            generation++;
            for (MemberSpec m : g.members()) {
                owned.put(m.id(), List.copyOf(plan.getOrDefault(m.id(), List.of())));
                gen.put(m.id(), generation);
            }
        }

        void restart(String oldId, String newId) {
            for (Map<String, List<TopicPartition>> o : List.of(owned, prevOwned)) {
                if (o.containsKey(oldId)) {
                    o.put(newId, o.remove(oldId));
                }
            }
            for (Map<String, Integer> o : List.of(gen, prevGen)) {
                if (o.containsKey(oldId)) {
                    o.put(newId, o.remove(oldId));
                }
            }
        }

        SideState copy() {
            SideState s = new SideState();
            s.owned = new HashMap<>(owned);
            s.gen = new HashMap<>(gen);
            s.prevOwned = new HashMap<>(prevOwned);
            s.prevGen = new HashMap<>(prevGen);
            s.generation = generation;
            return s;
        }
    }

    private static final ExecutorService JAVA = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "java-assignor");
        t.setDaemon(true); // a hung assignor must not keep the JVM alive
        return t;
    });

    /** Java's assignor, one instance for the whole chain as in a leader, each call bounded in time. */
    static Side java(String protocol, long timeoutMillis) {
        AbstractPartitionAssignor a = JavaAssignors.create(protocol);
        return g -> {
            Group.JavaInputs in = g.javaInputs(0);
            Future<Map<String, List<TopicPartition>>> f = JAVA.submit(() -> a.assignPartitions(in.partitionsPerTopic(), in.subscriptions()));
            try {
                return new Answer(AssigndCaller.sorted(f.get(timeoutMillis, TimeUnit.MILLISECONDS)), false);
            } catch (TimeoutException e) {
                f.cancel(true);
                throw e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                throw new JavaFailure(e.getCause());
            }
        };
    }

    /** Java's assignor threw. */
    static final class JavaFailure extends RuntimeException {
        JavaFailure(Throwable cause) {
            super(cause.toString(), cause);
        }
    }

    static Side assignd(AssigndCaller caller) {
        return g -> {
            Group.JavaInputs in = g.javaInputs(0);
            AssignResponse resp = caller.call(AssigndCaller.request(g.protocol(), in.partitionsPerTopic(), in.subscriptions(),
                    AssignmentView.ASSIGNMENT_VIEW_FULL), 120_000);
            return new Answer(AssigndCaller.sorted(AssigndCaller.plan(resp)), resp.getFollowupRequired());
        };
    }

    /**
     * Plays one round from g on side, follow-ups included, and leaves what
     * the members then own in state (when state is not null).
     */
    static Settled settle(Group g, Side side, SideState state) throws TimeoutException {
        Group cur = g;
        Map<String, List<TopicPartition>> first = null;
        Map<String, List<TopicPartition>> plan;
        List<String> violations = List.of();
        Group invalid = null;
        int followups = 0;
        int noop = 0;
        Group noopExample = null;
        int calls = 0;
        long nanos = 0;
        SideState s = state != null ? state : new SideState();
        if (state == null) {
            for (MemberSpec m : g.members()) {
                s.owned.put(m.id(), m.owned());
                s.gen.put(m.id(), m.generation());
            }
        }
        while (true) {
            long t0 = System.nanoTime();
            Answer a = side.assign(cur);
            nanos += System.nanoTime() - t0;
            calls++;
            plan = a.plan();
            if (first == null) {
                first = plan;
            }
            List<String> v = Plans.violations(cur, plan);
            if (!v.isEmpty() && violations.isEmpty()) {
                violations = v;
                invalid = cur;
            }
            boolean cooperative = "cooperative-sticky".equals(g.protocol());
            boolean revoked = false;
            if (cooperative) {
                for (MemberSpec m : cur.members()) {
                    Set<TopicPartition> lost = new HashSet<>(cur.ownedSent(m));
                    lost.removeAll(plan.getOrDefault(m.id(), List.of()));
                    revoked |= !lost.isEmpty();
                }
            }
            if (revoked && !a.followupRequired()) {
                noop++;
                if (noopExample == null) {
                    noopExample = cur;
                }
            }
            s.learn(cur, plan);
            if (!revoked) {
                break;
            }
            if (followups == MAX_FOLLOWUPS) {
                return new Settled(g, plan, first, followups, true, violations, invalid, nanos, noop, noopExample, calls);
            }
            followups++;
            List<MemberSpec> next = new ArrayList<>();
            for (MemberSpec m : cur.members()) {
                next.add(m.withOwned(s.owned.get(m.id()), s.gen.get(m.id())));
            }
            cur = new Group(g.protocol(), g.topics(), next);
        }
        return new Settled(g, plan, first, followups, false, violations, invalid, nanos, noop, noopExample, calls);
    }

    /** The events of a round as the sides see them: which members report stale, which restart. */
    static Set<String> applyRound(Chains.Model model, List<Event> events, List<SideState> states) {
        Set<String> stale = new HashSet<>();
        for (Event e : events) {
            model.apply(e);
            if (e instanceof Chains.Restart r) {
                states.forEach(s -> s.restart(r.oldId(), r.newId()));
                stale.remove(r.oldId());
            } else if (e instanceof Chains.Stale st) {
                stale.add(st.id());
            } else if (e instanceof Chains.Leave l) {
                stale.removeAll(l.ids());
            }
        }
        return stale;
    }

    /** The most minus the fewest partitions of one topic among its subscribers, the worst topic. */
    static int worstTopicSpread(Group g, Map<String, List<TopicPartition>> plan) {
        Map<String, Map<String, Integer>> held = new HashMap<>();
        plan.forEach((m, l) -> l.forEach(tp -> held.computeIfAbsent(tp.topic(), k -> new HashMap<>()).merge(m, 1, Integer::sum)));
        int worst = 0;
        for (Group.TopicSpec t : g.topics()) {
            int lo = Integer.MAX_VALUE;
            int hi = 0;
            for (MemberSpec m : g.members()) {
                if (m.topics().contains(t.name())) {
                    int n = held.getOrDefault(t.name(), Map.of()).getOrDefault(m.id(), 0);
                    lo = Math.min(lo, n);
                    hi = Math.max(hi, n);
                }
            }
            if (lo != Integer.MAX_VALUE) {
                worst = Math.max(worst, hi - lo);
            }
        }
        return worst;
    }

    /** The chain's rounds of events, for reproducers. */
    static String describeEvents(List<Event> events) {
        List<String> out = new ArrayList<>();
        for (Event e : events) {
            if (e instanceof Chains.Join j) {
                out.add("join " + j.members().size() + " (" + String.join(", ", j.members().stream().map(MemberSpec::id).toList()) + ")");
            } else if (e instanceof Chains.Leave l) {
                out.add(l.rack() != null ? "rack " + l.rack() + " leaves (" + l.ids().size() + " members)" : "leave " + l.ids());
            } else if (e instanceof Chains.Resubscribe r) {
                out.add("resubscribe " + r.id() + " to " + r.topics());
            } else if (e instanceof Chains.Grow g) {
                out.add(g.topic() + " +" + g.partitions() + " partitions");
            } else if (e instanceof Chains.NewTopic n) {
                out.add("new topic " + n.topic().name() + " (" + n.topic().partitions() + " partitions, " + n.subscribers().size() + " subscribers)");
            } else if (e instanceof Chains.Restart r) {
                out.add("static restart " + r.oldId() + " -> " + r.newId());
            } else if (e instanceof Chains.Stale s) {
                out.add("stale report by " + s.id());
            }
        }
        return String.join("; ", out);
    }

    static Map<String, List<TopicPartition>> emptyPlan() {
        return new HashMap<>();
    }
}
