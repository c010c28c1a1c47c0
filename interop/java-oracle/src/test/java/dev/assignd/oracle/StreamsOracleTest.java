package dev.assignd.oracle;

import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.AssignmentServiceGrpc;
import assignd.v1.TaskAssignment.AssignTasksRequest;
import assignd.v1.TaskAssignment.AssignTasksResponse;
import assignd.v1.TaskAssignment.GroupType;
import assignd.v1.TaskAssignment.StreamsMember;
import assignd.v1.TaskAssignment.StreamsMemberAssignment;
import assignd.v1.TaskAssignment.StreamsTask;
import assignd.v1.TaskAssignment.Subtopology;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.junit.jupiter.api.Test;

/**
 * The broker's built-in Streams task assignor (kafka-group-coordinator
 * {@code StickyTaskAssignor}, {@code group.streams.assignors=sticky}) as
 * the oracle of assignd's task assignor, over chains of rebalances
 * ({@link StreamsGroups}): each round goes to the built-in in-process, as
 * the broker calls it, and to a real assignd over gRPC (AssignTasks, the
 * policy's rule for streams groups), and each side is given its own
 * previous answer as the members' current tasks, as the broker gives an
 * assignor its last target. Both plans are checked with
 * {@link StreamsPlans#violations}; the moves each side makes are counted
 * with {@link StreamsPlans#moves}. The report is target/oracle/streams.md.
 *
 * <p>What fails the build: an invalid assignd plan, a failed call, or
 * assignd moving more tasks (active and standby together) than the
 * built-in over all chains. The built-in's own invalid plans are counted
 * and reported, not failed on: they are what assignd is measured against.
 *
 * <p>{@code -Doracle.streams.chains=N} sets the number of chains (CI runs
 * 200; {@code 2000} by hand).
 */
class StreamsOracleTest extends OracleSuite {
    static final int ROUNDS = 8;

    private final int chains = Integer.getInteger("oracle.streams.chains", 200);
    private ManagedChannel channel;
    private AssignmentServiceGrpc.AssignmentServiceBlockingStub stub;

    /** What one side did over every chain. */
    static final class Side {
        final String name;
        StreamsPlans.Moves moves = StreamsPlans.Moves.NONE;
        int invalidRounds;
        int sameTagStandbys;
        int failed;
        long nanos;
        final List<String> invalid = new ArrayList<>();
        final Map<String, StreamsPlans.Moves> byChange = new TreeMap<>();
        /** Rounds breaking each kind of invariant ({@link StreamsPlans#kind}). */
        final Map<String, Integer> broken = new TreeMap<>();

        Side(String name) {
            this.name = name;
        }

        void add(String change, StreamsPlans.Moves m) {
            moves = moves.plus(m);
            byChange.merge(change, m, StreamsPlans.Moves::plus);
        }

        int total() {
            return moves.active() + moves.standby();
        }
    }

    private final Side builtin = new Side("StickyTaskAssignor");
    private final Side assignd = new Side("assignd sticky@1");
    private final Map<String, Integer> roundsByChange = new TreeMap<>();
    private int rounds;

    @Override
    void started() {
        channel = ManagedChannelBuilder.forTarget(server.target()).usePlaintext().build();
        stub = AssignmentServiceGrpc.newBlockingStub(channel);
    }

    StreamsOracleTest() {
        super("streams.md");
    }

    @Override
    String report() {
        if (channel != null) {
            channel.shutdownNow();
        }
        StringBuilder b = new StringBuilder("# assignd's task assignor against the broker's StickyTaskAssignor\n\n");
        b.append(String.format(Locale.ROOT, "%d chains of %d rounds (%d rounds); the built-in from %s; assignd %s.%n%n",
                chains, ROUNDS, rounds, jarOf(StickyTaskAssignor.class), AssigndProcess.binary()));
        b.append("| side | active moves | across processes | restoring | standby moves | total | invalid rounds"
                        + " | standbys sharing tags needlessly | failed calls | time |\n")
                .append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Side s : List.of(builtin, assignd)) {
            b.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %.0f ms |%n", s.name, s.moves.active(),
                    s.moves.activeAcrossProcesses(), s.moves.restoring(), s.moves.standby(), s.total(), s.invalidRounds,
                    s.sameTagStandbys, s.failed, s.nanos / 1e6));
        }
        b.append("\n## Moves by change (built-in / assignd)\n\n| change | rounds | active | across processes | restoring | standby |\n")
                .append("| --- | --- | --- | --- | --- | --- |\n");
        roundsByChange.forEach((c, n) -> {
            StreamsPlans.Moves x = builtin.byChange.getOrDefault(c, StreamsPlans.Moves.NONE);
            StreamsPlans.Moves y = assignd.byChange.getOrDefault(c, StreamsPlans.Moves.NONE);
            b.append(String.format(Locale.ROOT, "| %s | %d | %d / %d | %d / %d | %d / %d | %d / %d |%n", c, n, x.active(), y.active(),
                    x.activeAcrossProcesses(), y.activeAcrossProcesses(), x.restoring(), y.restoring(), x.standby(), y.standby()));
        });
        for (Side s : List.of(builtin, assignd)) {
            if (!s.broken.isEmpty()) {
                b.append("\n## Invariants ").append(s.name).append(" broke, in rounds\n\n| invariant | rounds |\n| --- | --- |\n");
                s.broken.forEach((k, n) -> b.append("| ").append(k).append(" | ").append(n).append(" |\n"));
            }
        }
        for (Side s : List.of(builtin, assignd)) {
            if (!s.invalid.isEmpty()) {
                b.append("\n## Invalid plans of ").append(s.name).append(" (first ").append(s.invalid.size()).append(")\n\n```\n")
                        .append(String.join("\n", s.invalid)).append("```\n");
            }
        }
        return b.toString();
    }

    /** The jar a class was loaded from, which names its version. */
    private static String jarOf(Class<?> c) {
        String path = c.getProtectionDomain().getCodeSource().getLocation().getPath();
        return path.substring(path.lastIndexOf('/') + 1);
    }

    @Test
    void chains() {
        for (long seed = 1; seed <= chains; seed++) {
            chain(seed);
        }
        System.out.printf(Locale.ROOT, "streams: %d chains, %d rounds; moves active/across/restoring/standby: built-in %d/%d/%d/%d,"
                        + " assignd %d/%d/%d/%d; invalid rounds: built-in %d, assignd %d%n", chains, rounds,
                builtin.moves.active(), builtin.moves.activeAcrossProcesses(), builtin.moves.restoring(), builtin.moves.standby(),
                assignd.moves.active(), assignd.moves.activeAcrossProcesses(), assignd.moves.restoring(), assignd.moves.standby(),
                builtin.invalidRounds, assignd.invalidRounds);
        assertTrue(assignd.invalid.isEmpty() && assignd.failed == 0,
                () -> "assignd's task plans break an invariant:\n" + String.join("\n", assignd.invalid));
        assertTrue(assignd.total() <= builtin.total(), () -> String.format(Locale.ROOT,
                "assignd moved %d tasks (%d active, %d standby), the built-in %d (%d active, %d standby)",
                assignd.total(), assignd.moves.active(), assignd.moves.standby(),
                builtin.total(), builtin.moves.active(), builtin.moves.standby()));
    }

    private void chain(long seed) {
        Random r = new Random(seed);
        StreamsGroups.Group g = StreamsGroups.generate(r);
        StreamsGroups.Group before = null;
        Map<String, MemberAssignment> prevBuiltin = Map.of(), prevAssignd = Map.of();
        for (int round = 0; round < ROUNDS; round++) {
            if (round > 0) {
                before = g;
                g = StreamsGroups.next(g, r);
            }
            rounds++;
            roundsByChange.merge(g.change, 1, Integer::sum);
            Map<String, MemberAssignment> b = play(builtin, seed, round, g, before, prevBuiltin, StreamsOracleTest::builtin);
            Map<String, MemberAssignment> a = play(assignd, seed, round, g, before, prevAssignd, this::assignd);
            prevBuiltin = b;
            prevAssignd = a;
        }
    }

    /** One side's round: its plan (its previous plan again if it failed), checked and counted. */
    private Map<String, MemberAssignment> play(Side s, long seed, int round, StreamsGroups.Group g, StreamsGroups.Group before,
                                               Map<String, MemberAssignment> prev,
                                               BiFunction<StreamsGroups.Group, Map<String, MemberAssignment>, Map<String, MemberAssignment>> call) {
        Map<String, MemberAssignment> plan;
        long start = System.nanoTime();
        try {
            plan = call.apply(g, prev);
        } catch (RuntimeException e) {
            s.failed++;
            if (s.invalid.size() < 20) {
                s.invalid.add("seed " + seed + " round " + round + ": " + e + "\n" + g);
            }
            return Map.of();
        } finally {
            s.nanos += System.nanoTime() - start;
        }
        List<String> bad = StreamsPlans.violations(g, plan);
        if (!bad.isEmpty()) {
            bad.stream().map(StreamsPlans::kind).distinct().forEach(k -> s.broken.merge(k, 1, Integer::sum));
            s.invalidRounds++;
            if (s.invalid.size() < 20) {
                s.invalid.add("seed " + seed + " round " + round + ": " + bad.subList(0, Math.min(bad.size(), 5)) + "\n" + g);
            }
        }
        s.sameTagStandbys += StreamsPlans.sameTagStandbys(g, plan);
        if (before != null) {
            s.add(g.change, StreamsPlans.moves(before, prev, g, plan));
        }
        return plan;
    }

    /** The current tasks of a member: its own last plan, if it was a member then. */
    private static MemberAssignment currentOf(Map<String, MemberAssignment> prev, String member) {
        return prev.getOrDefault(member, new MemberAssignment(Map.of(), Map.of()));
    }

    /** The broker's built-in, called as the coordinator calls it. */
    private static Map<String, MemberAssignment> builtin(StreamsGroups.Group g, Map<String, MemberAssignment> prev) {
        Map<String, MemberMetadataAndStateImpl> members = new TreeMap<>();
        g.members().forEach((id, p) -> {
            MemberAssignment cur = currentOf(prev, id);
            members.put(id, new MemberMetadataAndStateImpl(Optional.empty(), Optional.ofNullable(p.rack()), p.id(), p.tags(),
                    cur.activeTasks(), cur.standbyTasks(), Map.of(), Map.of(), Map.of()));
        });
        TaskAssignor a = new StickyTaskAssignor();
        GroupAssignment out = a.assign(new GroupSpecImpl(members, new AssignmentConfigsImpl(g.standbys, g.rackTags)), describer(g));
        return new TreeMap<>(out.members());
    }

    private static TopologyDescriber describer(StreamsGroups.Group g) {
        return new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return g.subs.stream().map(StreamsGroups.Sub::id).toList();
            }

            @Override
            public int maxNumInputPartitions(String id) {
                return g.subs.stream().filter(s -> s.id().equals(id)).findFirst()
                        .orElseThrow(() -> new NoSuchElementException(id)).partitions();
            }

            @Override
            public boolean isStateful(String id) {
                return g.stateful(id);
            }
        };
    }

    /** assignd over gRPC, with what the broker gives its assignor. */
    private Map<String, MemberAssignment> assignd(StreamsGroups.Group g, Map<String, MemberAssignment> prev) {
        AssignTasksRequest.Builder req = AssignTasksRequest.newBuilder()
                .setGroupId("streams-oracle")
                .setGroupType(GroupType.GROUP_TYPE_STREAMS)
                .setNumStandbyReplicas(g.standbys)
                .addAllRackAwareAssignmentTags(g.rackTags);
        g.subs.forEach(s -> req.addSubtopologies(Subtopology.newBuilder().setId(s.id()).setPartitionCount(s.partitions()).setStateful(s.stateful())));
        g.members().forEach((id, p) -> {
            MemberAssignment cur = currentOf(prev, id);
            StreamsMember.Builder m = StreamsMember.newBuilder().setMemberId(id).setProcessId(p.id()).putAllClientTags(p.tags());
            if (p.rack() != null) {
                m.setRackId(p.rack());
            }
            StreamsPlans.list(cur.activeTasks()).forEach(t -> m.addActiveTasks(task(t)));
            StreamsPlans.list(cur.standbyTasks()).forEach(t -> m.addStandbyTasks(task(t)));
            req.addMembers(m);
        });
        AssignTasksResponse resp = stub.withDeadlineAfter(30, TimeUnit.SECONDS).assignTasks(req.build());
        if (!resp.getPolicy().startsWith(AssigndProcess.STREAMS_RULE + "/")) {
            throw new IllegalStateException("assignd's policy " + resp.getPolicy() + " is not the oracle's rule for streams groups");
        }
        Map<String, MemberAssignment> out = new TreeMap<>();
        for (StreamsMemberAssignment a : resp.getAssignmentsList()) {
            out.put(a.getMemberId(), new MemberAssignment(tasks(a.getActiveTasksList()), tasks(a.getStandbyTasksList())));
        }
        return out;
    }

    private static StreamsTask task(StreamsPlans.Task t) {
        return StreamsTask.newBuilder().setSubtopologyId(t.sub()).setPartition(t.partition()).build();
    }

    private static Map<String, Set<Integer>> tasks(List<StreamsTask> ts) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        ts.forEach(t -> out.computeIfAbsent(t.getSubtopologyId(), k -> new TreeSet<>()).add(t.getPartition()));
        return out;
    }
}
