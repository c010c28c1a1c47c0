package dev.assignd.oracle;

import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import dev.assignd.oracle.Group.MemberSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs one group through Java's assignor (in four insertion orders) and
 * through assignd, and says how they compare.
 */
final class Oracle {
    /** Insertion orders Java runs in: as built, reversed, two shuffles. */
    static final int ORDERS = 4;

    private final AssigndCaller assignd;

    Oracle(AssigndCaller assignd) {
        this.assignd = assignd;
    }

    /** assignd's answer to a group, with the partitions it withholds. */
    record AssigndAnswer(Map<String, List<TopicPartition>> plan, List<TopicPartition> pending) {
    }

    /** The comparison of one group. */
    record Outcome(Group group, List<Map<String, List<TopicPartition>>> javaPlans, AssigndAnswer assignd,
                   List<String> assigndViolations, List<String> javaViolations, boolean assigndOrderStable,
                   Plans.Quality javaQuality, Plans.Quality assigndQuality, List<Plans.Quality> javaQualities) {

        /** Java's own result changes with hash-map insertion order. */
        boolean orderDependent() {
            for (Map<String, List<TopicPartition>> p : javaPlans) {
                if (!p.equals(javaPlans.get(0))) {
                    return true;
                }
            }
            return false;
        }

        boolean exact() {
            return !orderDependent() && assignd.plan().equals(javaPlans.get(0));
        }

        /** A mismatch where Java's answer is defined: what the shrinker minimises. */
        boolean mismatch() {
            return !orderDependent() && !exact();
        }

        /**
         * assignd's plan is less balanced than Java's: unbalanced by Java's
         * criterion where one of Java's orders is balanced, or a wider spread
         * of partition counts than every one of Java's orders.
         */
        boolean worseBalance() {
            boolean javaBalanced = javaQualities.stream().anyMatch(Plans.Quality::balanced);
            int javaWorst = javaQualities.stream().mapToInt(Plans.Quality::imbalance).max().orElse(0);
            return (javaBalanced && !assigndQuality.balanced()) || assigndQuality.imbalance() > javaWorst;
        }
    }

    AssigndAnswer askAssignd(Group g, int order) {
        Group.JavaInputs in = g.javaInputs(order);
        AssignResponse resp = assignd.call(AssigndCaller.request(g.protocol(), in.partitionsPerTopic(), in.subscriptions(),
                AssignmentView.ASSIGNMENT_VIEW_FULL), 60_000);
        if (!resp.getAssignor().equals(g.protocol()) || resp.getAssignorVersion() != 1) {
            throw new IllegalStateException("assignd ran " + resp.getAssignor() + "@" + resp.getAssignorVersion());
        }
        return new AssigndAnswer(AssigndCaller.sorted(AssigndCaller.plan(resp)), AssigndCaller.pending(resp));
    }

    static Map<String, List<TopicPartition>> askJava(Group g, int order) {
        return AssigndCaller.sorted(JavaAssignors.assign(g.protocol(), g.javaInputs(order)));
    }

    Outcome compare(Group g) {
        List<Map<String, List<TopicPartition>>> java = new ArrayList<>();
        for (int o = 0; o < ORDERS; o++) {
            java.add(askJava(g, o));
        }
        AssigndAnswer a = askAssignd(g, 0);
        AssigndAnswer reversed = askAssignd(g, 1);
        boolean stable = a.plan().equals(reversed.plan());
        List<String> av = Plans.violations(g, a.plan());
        List<String> jv = Plans.violations(g, java.get(0));
        Map<TopicPartition, String> owners = Plans.validOwners(g);
        List<Plans.Quality> jq = new ArrayList<>();
        for (int o = 0; o < ORDERS; o++) {
            final int order = o;
            jq.add(Plans.quality(g, converge(g, java.get(o), h -> askJava(h, order)), owners));
        }
        Plans.Quality aq = Plans.quality(g, converge(g, a.plan(), h -> askAssignd(h, 0).plan()), owners);
        return new Outcome(g, java, a, av, jv, stable, jq.get(0), aq, jq);
    }

    /**
     * The plan after the follow-up rebalances of KIP-429 (cooperative-sticky
     * withholds partitions until their owners revoke them), each side fed its
     * own previous plan; other protocols finish in one round.
     */
    static Map<String, List<TopicPartition>> converge(Group g, Map<String, List<TopicPartition>> first,
                                                      Function<Group, Map<String, List<TopicPartition>>> side) {
        if (!"cooperative-sticky".equals(g.protocol())) {
            return first;
        }
        Map<String, List<TopicPartition>> plan = first;
        Group cur = g;
        for (int round = 0; round < 4; round++) {
            int assigned = plan.values().stream().mapToInt(List::size).sum();
            if (assigned >= cur.assignable().size()) {
                break;
            }
            int gen = cur.members().stream().mapToInt(MemberSpec::generation).max().orElse(0) + 1;
            final Map<String, List<TopicPartition>> p = plan;
            List<MemberSpec> next = new ArrayList<>();
            for (MemberSpec m : cur.members()) {
                next.add(m.withOwned(p.getOrDefault(m.id(), List.of()), gen));
            }
            cur = new Group(g.protocol(), g.topics(), next);
            plan = side.apply(cur);
        }
        return plan;
    }
}
