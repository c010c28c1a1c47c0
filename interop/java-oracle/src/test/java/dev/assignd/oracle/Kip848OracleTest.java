package dev.assignd.oracle;

import static org.junit.jupiter.api.Assertions.assertTrue;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.RebalanceProtocol;
import assignd.v1.Assignment.Topic;
import assignd.v1.Assignment.TopicPartitions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The broker's own server-side assignors (kafka-group-coordinator
 * {@code UniformAssignor} and {@code RangeAssignor}) as the oracle of
 * assignd's reproductions {@code kip848-uniform@1} and {@code kip848-range@1}
 * (docs/kip848.md): the same random group ({@link Kip848Groups}: homogeneous
 * and heterogeneous, with and without a current assignment, with new topics)
 * goes to the broker's class in-process and to a real assignd over gRPC, and
 * the two target assignments are compared. The report is
 * target/oracle/kip848.md.
 *
 * <p>assignd is asked for an EAGER plan with the current assignment as the
 * members' owned partitions: under EAGER assignd withholds nothing, so its
 * plan is the target the broker returns. The broker runs in the canonical
 * orders (see {@link BrokerAssignors}); it also runs in three random hash
 * orders to count the groups whose broker answer depends on them.
 *
 * <p>What fails the build: an invalid plan on either side, or an exact-match
 * rate below its floor ({@link #FLOORS}).
 */
class Kip848OracleTest extends OracleSuite {
    /**
     * The measured exact-match rates (rounded down): a regression fails, an
     * improvement should raise them. docs/java-oracle.md has the figures.
     */
    static final Map<String, Double> FLOORS = Map.of(
            "kip848-uniform", 1.0,
            "kip848-range", 1.0);

    private static final int HASH_ORDERS = 3;

    private final Map<String, Tally848> tallies = new LinkedHashMap<>();
    private final int seeds = Integer.getInteger("oracle.seeds", 200);

    /** Counts per assignor, and per (subscription type, scenario). */
    static final class Tally848 {
        final String name;
        int groups;
        int exact;
        int orderDependent;
        final Map<String, int[]> cells = new TreeMap<>(); // key → {groups, exact}
        final List<String> invalid = new ArrayList<>();
        final List<String> mismatches = new ArrayList<>();

        Tally848(String name) {
            this.name = name;
        }

        double rate() {
            return groups == 0 ? 1 : (double) exact / groups;
        }
    }

    Kip848OracleTest() {
        super("kip848.md");
    }

    @Override
    String report() {
        return report("assignd's KIP-848 assignors against the broker's",
                String.format(Locale.ROOT, "%d seeds per assignor; kafka-group-coordinator %s; assignd %s.", seeds,
                        UniformAssignor.class.getPackage().getImplementationVersion(), AssigndProcess.binary()),
                "| assignor | groups | exact | rate | broker answer depends on hash order |\n| --- | --- | --- | --- | --- |\n",
                tallies.values(), t -> String.format(Locale.ROOT, "| %s | %d | %d | %.1f%% | %d |%n", t.name, t.groups, t.exact,
                        100 * t.rate(), t.orderDependent), Kip848OracleTest::details);
    }

    /** One assignor's section: its groups by subscriptions and scenario, then what went wrong. */
    private static String details(Tally848 t) {
        StringBuilder b = new StringBuilder("## ").append(t.name).append("\n\n| subscriptions, scenario | groups | exact |\n| --- | --- | --- |\n");
        t.cells.forEach((k, v) -> b.append("| ").append(k).append(" | ").append(v[0]).append(" | ").append(v[1]).append(" |\n"));
        if (!t.invalid.isEmpty()) {
            b.append("\n### Invalid plans\n\n```\n").append(String.join("\n", t.invalid)).append("```\n");
        }
        if (!t.mismatches.isEmpty()) {
            b.append("\n### Mismatches (first ").append(t.mismatches.size()).append(")\n\n```\n")
                    .append(String.join("\n", t.mismatches)).append("```\n");
        }
        return b.append('\n').toString();
    }

    /** The broker's assignors, each with the name of assignd's reproduction. */
    static Stream<Arguments> brokerAssignors() {
        return Stream.of(Arguments.of("kip848-uniform", (Supplier<PartitionAssignor>) UniformAssignor::new),
                Arguments.of("kip848-range", (Supplier<PartitionAssignor>) RangeAssignor::new));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokerAssignors")
    void assignor(String name, Supplier<PartitionAssignor> broker) {
        check(run(name, broker));
    }

    private Tally848 run(String name, Supplier<PartitionAssignor> broker) {
        Tally848 t = new Tally848(name);
        tallies.put(name, t);
        for (long seed = 1; seed <= seeds; seed++) {
            Kip848Groups.Group g = Kip848Groups.generate(seed);
            Map<String, Map<String, SortedSet<Integer>>> want = BrokerAssignors.run(broker.get(), g, null);
            Map<String, Map<String, SortedSet<Integer>>> got = assignd(name, seed, g);
            for (int o = 1; o <= HASH_ORDERS; o++) {
                if (!BrokerAssignors.run(broker.get(), g, new Random(seed * 31 + o)).equals(want)) {
                    t.orderDependent++;
                    break;
                }
            }
            t.groups++;
            String cell = (g.homogeneous() ? "homogeneous" : "heterogeneous") + ", " + g.scenario();
            int[] c = t.cells.computeIfAbsent(cell, k -> new int[2]);
            c[0]++;
            List<String> bad = BrokerAssignors.violations(g, got);
            if (!bad.isEmpty()) {
                t.invalid.add("seed " + seed + ": assignd " + bad + "\n" + g);
            }
            List<String> badJava = BrokerAssignors.violations(g, want);
            if (!badJava.isEmpty()) {
                t.invalid.add("seed " + seed + ": broker " + badJava + "\n" + g);
            }
            if (got.equals(want)) {
                t.exact++;
                c[1]++;
            } else if (t.mismatches.size() < 20) {
                t.mismatches.add("seed " + seed + ": " + g + "broker:  " + want + "\nassignd: " + got + "\n");
            }
        }
        System.out.printf(Locale.ROOT, "%s: exact %d/%d (%.1f%%), broker order-dependent %d, invalid %d%n",
                name, t.exact, t.groups, 100 * t.rate(), t.orderDependent, t.invalid.size());
        return t;
    }

    /** assignd's plan for the group, under EAGER (nothing withheld) with the current assignment as owned partitions. */
    private Map<String, Map<String, SortedSet<Integer>>> assignd(String name, long seed, Kip848Groups.Group g) {
        AssignRequest.Builder req = AssignRequest.newBuilder()
                .setGroupId(name + "-" + seed) // the policy's group prefix picks the assignor
                .setProtocolName("cooperative-sticky")
                .setRebalanceProtocol(RebalanceProtocol.REBALANCE_PROTOCOL_EAGER)
                .setView(AssignmentView.ASSIGNMENT_VIEW_FULL);
        g.topics().forEach(tp -> req.addTopics(Topic.newBuilder().setName(tp.name()).setPartitionCount(tp.partitions())));
        for (Kip848Groups.Member m : g.members()) {
            Member.Builder mb = Member.newBuilder().setMemberId(m.id()).addAllTopics(m.topics());
            if (m.instanceId() != null) {
                mb.setGroupInstanceId(m.instanceId());
            }
            m.current().forEach((topic, ps) -> mb.addOwnedPartitions(TopicPartitions.newBuilder().setTopic(topic).addAllPartitions(ps)));
            if (!m.current().isEmpty()) {
                mb.setGeneration(5);
            }
            req.addMembers(mb);
        }
        AssignResponse resp = caller.call(req.build(), 60_000);
        if (!resp.getAssignor().equals(name) || resp.getAssignorVersion() != 1) {
            throw new IllegalStateException("assignd ran " + resp.getAssignor() + "@" + resp.getAssignorVersion() + " for " + name);
        }
        Map<String, Map<String, SortedSet<Integer>>> out = new TreeMap<>();
        g.members().forEach(m -> out.put(m.id(), new TreeMap<>()));
        AssigndCaller.plan(resp).forEach((id, tps) -> {
            Map<String, SortedSet<Integer>> a = out.computeIfAbsent(id, k -> new TreeMap<>());
            for (TopicPartition tp : tps) {
                a.computeIfAbsent(tp.topic(), k -> new TreeSet<>()).add(tp.partition());
            }
        });
        return out;
    }

    private static void check(Tally848 t) {
        assertTrue(t.invalid.isEmpty(), () -> t.name + ": invalid plans:\n" + String.join("\n", t.invalid));
        double floor = FLOORS.get(t.name);
        assertTrue(t.rate() >= floor, () -> String.format(Locale.ROOT, "%s: exact-match rate %.4f below its floor %.4f; mismatches:%n%s",
                t.name, t.rate(), floor, String.join("\n", t.mismatches)));
    }
}
