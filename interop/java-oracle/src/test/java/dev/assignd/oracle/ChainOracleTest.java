package dev.assignd.oracle;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.oracle.ChainRunner.Settled;
import dev.assignd.oracle.ChainRunner.SideState;
import dev.assignd.oracle.Chains.Chain;
import dev.assignd.oracle.Chains.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;

/**
 * Multi-round chains ({@link Chains}) on both sides, each fed its own
 * answers, follow-ups run at once ({@link ChainRunner}), and every round
 * also in lockstep (assignd asked on Java's input). The report is
 * target/oracle/chains.md: per assignor, moves, follow-ups, invalid plans
 * and failures on each side, time per round, and every lockstep round in
 * which assignd moves more partitions than Java without a better balance
 * or locality, shrunk (rounds in which Java's own plan is invalid are not
 * compared on moves, only counted).
 *
 * <p>What fails the build: an invalid assignd plan, in a chain or in
 * lockstep; an assignd round that never settles or fails; a round in which
 * a member loses a partition while assignd answers followup_required=false
 * (the member rejoins all the same); a lockstep difference of range or
 * roundrobin; more lockstep rounds in which assignd moves more than Java
 * than {@link #MOVES_MORE_CEILING} allows.
 */
class ChainOracleTest extends ClientOracleSuite<ChainOracleTest.ChainTally> {
    /**
     * The measured count of lockstep rounds (200 chains) in which assignd
     * moves more than Java with no better balance or locality: a
     * regression fails, an improvement should lower them.
     */
    static final Map<String, Integer> MOVES_MORE_CEILING = Map.of(
            "range", 0,
            "roundrobin", 0,
            "sticky", 0,
            "cooperative-sticky", 1);

    /** Reproducers printed per kind; the counts cover all. */
    private static final int MAX_REPRODUCERS = 12;
    /** Shrink groups up to this many members (larger ones print a summary). */
    private static final int SHRINK_MAX_MEMBERS = 60;

    private final int seeds = Integer.getInteger("oracle.chains", Integer.getInteger("oracle.seeds", 200));
    private final boolean large = Boolean.getBoolean("oracle.chains.large");
    private final long timeout = Long.getLong("oracle.chains.timeout", 30_000);
    /** -Doracle.chains.only=1135,1712: replay these seeds alone (a reproducer from chains.md), not 1..N. */
    private final List<Long> only = parseSeeds(System.getProperty("oracle.chains.only", ""));

    private static List<Long> parseSeeds(String s) {
        List<Long> l = new ArrayList<>();
        for (String x : s.split(",")) {
            if (!x.isBlank()) {
                l.add(Long.parseLong(x.trim()));
            }
        }
        return l;
    }

    private List<Long> seedList() {
        if (!only.isEmpty()) {
            return only;
        }
        List<Long> l = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            l.add(seed);
        }
        return l;
    }

    ChainOracleTest() {
        super("chains.md", ChainTally::new);
    }

    @Override
    String report() {
        return report("assignd against kafka-clients' assignors: chains",
                String.format(Locale.ROOT, "%d chains per assignor%s; Java's calls bounded at %d s; kafka-clients %s.", seeds,
                        large ? " (large shapes included)" : "", timeout / 1000, KafkaClients.version()),
                ChainTally.summaryHeader(), tallies.values(), ChainTally::summaryRow, ChainTally::markdown);
    }

    @Override
    void run(String protocol, ChainTally t) {
        long t0 = System.nanoTime();
        ChainRunner.Side assignd = ChainRunner.assignd(caller);
        for (long seed : seedList()) {
            Chain c = Chains.generate(protocol, seed, large);
            t.chains.merge(c.shape(), 1, Integer::sum);
            Chains.Model model = Chains.Model.start(c);
            SideState js = new SideState();
            SideState as = new SideState();
            ChainRunner.Side java = ChainRunner.java(protocol, timeout);
            for (int k = 0; k <= c.rounds().size(); k++) {
                List<Event> events = k == 0 ? List.of() : c.rounds().get(k - 1);
                Set<String> stale = ChainRunner.applyRound(model, events, List.of(js, as));
                Group gj = js.group(protocol, model, stale);
                Group ga = as.group(protocol, model, stale);
                js.roundStarts();
                as.roundStarts();
                String where = c.label() + ", round " + k + (events.isEmpty() ? " (first assignment)" : ": " + ChainRunner.describeEvents(events));
                Settled j;
                try {
                    j = ChainRunner.settle(gj, java, js);
                } catch (TimeoutException e) {
                    t.javaHangs.add(block("Java's assignor did not return within " + timeout / 1000 + " s, " + where, gj, null, null));
                    break;
                } catch (ChainRunner.JavaFailure e) {
                    t.javaThrew.add(block("Java's assignor threw " + e.getMessage() + ", " + where, gj, null, null));
                    break;
                }
                Settled a = settleAssignd(ga, assignd, as, t, where);
                Settled l = settleAssignd(gj, assignd, null, t, where + " (lockstep)");
                t.add(c.shape(), events, j, a, l);
                if (a.noopExample() != null) {
                    t.add(t.noopRejoins, block("a member lost a partition while assignd answered followup_required=false, " + where,
                            a.noopExample(), null, null));
                }
                if (!a.violations().isEmpty()) {
                    t.invalid.add(block("INVALID assignd plan: " + a.violations() + ", " + where, a.invalidGroup(), null, null));
                }
                if (!l.violations().isEmpty()) {
                    t.invalid.add(block("INVALID assignd plan (lockstep): " + l.violations() + ", " + where, l.invalidGroup(), null, null));
                }
                if (a.livelock() || l.livelock()) {
                    t.assigndLivelocks.add(block("assignd never settled (" + ChainRunner.MAX_FOLLOWUPS + " follow-ups), " + where, gj, null, null));
                }
                if (!j.violations().isEmpty()) {
                    t.javaInvalidRounds++;
                    t.add(t.javaInvalid, block("Java's plan breaks an invariant: " + first(j.violations()) + ", " + where,
                            shrink(j.invalidGroup(), h -> !settleQuiet(h, ChainRunner.java(protocol, timeout)).violations().isEmpty()), null, null));
                }
                if (j.livelock()) {
                    t.javaLivelocks.add(block("Java never settled (" + ChainRunner.MAX_FOLLOWUPS + " follow-ups), " + where, gj, null, null));
                }
                compareLockstep(t, protocol, where, gj, j, l, assignd);
            }
        }
        t.seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "%s chains: %d chains, %d rounds in %.1f s; assignd moved %d, Java %d; lockstep: assignd moves more %d, fewer %d; "
                        + "invalid assignd %d, Java %d rounds; Java hangs %d, livelocks %d%n",
                protocol, only.isEmpty() ? seeds : only.size(), t.rounds, t.seconds, t.assigndMoved, t.javaMoved, t.movesMore, t.movesFewer, t.invalid.size(),
                t.javaInvalidRounds, t.javaHangs.size(), t.javaLivelocks.size());
    }

    private Settled settleAssignd(Group g, ChainRunner.Side assignd, SideState s, ChainTally t, String where) {
        try {
            return ChainRunner.settle(g, assignd, s);
        } catch (TimeoutException | RuntimeException e) {
            t.assigndFailed.add(block("assignd failed: " + e + ", " + where, g, null, null));
            throw new AssertionError("assignd failed, " + where, e);
        }
    }

    /** Settles g on side; a failure or a hang counts as no result (for shrinking). */
    private static Settled settleQuiet(Group g, ChainRunner.Side side) {
        try {
            return ChainRunner.settle(g, side, null);
        } catch (TimeoutException | RuntimeException e) {
            return null;
        }
    }

    private void compareLockstep(ChainTally t, String protocol, String where, Group g, Settled j, Settled l, ChainRunner.Side assignd) {
        t.lockstepRounds++;
        if (l.first().equals(j.first())) {
            t.lockstepExact++;
        } else if (protocol.equals("range") || protocol.equals("roundrobin")) {
            t.add(t.layoutDiffers, block("range/roundrobin plans differ, " + where, g, j, l));
        }
        if (!j.violations().isEmpty()) {
            // Java's plan is invalid (a partition kept by a member that no
            // longer subscribes to it, from its stale user data, or given
            // to a stale claimant): its moves are no bar, since the valid
            // plan must move what it kept.
            t.lockstepJavaInvalid++;
            return;
        }
        int more = movesMore(j, l);
        if (more > 0) {
            t.movesMore++;
            t.movesMoreBy += more;
            Group small = shrink(g, h -> {
                Settled hj = settleQuiet(h, ChainRunner.java(protocol, timeout));
                Settled hl = settleQuiet(h, assignd);
                return hj != null && hl != null && hj.violations().isEmpty() && movesMore(hj, hl) > 0;
            });
            Settled sj = small == g ? j : settleQuiet(small, ChainRunner.java(protocol, timeout));
            Settled sl = small == g ? l : settleQuiet(small, assignd);
            t.add(t.movesMoreCases, block("assignd moves " + more + " more (lockstep; Java " + j.quality() + " rack=" + j.rack()
                    + " off-rack=" + j.offRack() + ", assignd " + l.quality() + " rack=" + l.rack() + " off-rack=" + l.offRack() + "), " + where,
                    small, sj, sl));
        } else if (l.quality().moved() < j.quality().moved()) {
            t.movesFewer++;
        }
    }

    /**
     * How many more partitions assignd (l) moves than Java (j) from live
     * owners, when its settled plan is no better balanced (Java's criterion,
     * the spread of counts, and their sum of squares: with unequal
     * subscriptions two plans of the same spread can differ in evenness)
     * and places no more partitions on their replicas' racks and no fewer
     * off them; 0 otherwise.
     */
    static int movesMore(Settled j, Settled l) {
        Plans.Quality jq = j.quality();
        Plans.Quality lq = l.quality();
        boolean noBetter = lq.imbalance() >= jq.imbalance() && (jq.balanced() || !lq.balanced())
                && sumOfSquares(l.plan()) >= sumOfSquares(j.plan()) && l.rack() <= j.rack() && l.offRack() >= j.offRack();
        return noBetter && lq.moved() > jq.moved() ? lq.moved() - jq.moved() : 0;
    }

    static long sumOfSquares(Map<String, List<org.apache.kafka.common.TopicPartition>> plan) {
        long s = 0;
        for (List<org.apache.kafka.common.TopicPartition> l : plan.values()) {
            s += (long) l.size() * l.size();
        }
        return s;
    }

    private static Group shrink(Group g, java.util.function.Predicate<Group> holds) {
        if (g == null || g.members().size() > SHRINK_MAX_MEMBERS) {
            return g;
        }
        return Shrinker.shrink(g, holds);
    }

    private static String first(List<String> v) {
        return v.isEmpty() ? "" : v.get(0) + (v.size() > 1 ? " (and " + (v.size() - 1) + " more)" : "");
    }

    /** A reproducer: the group (or a summary of a large one) and the settled plans. */
    static String block(String title, Group g, Settled j, Settled l) {
        StringBuilder b = new StringBuilder("##### ").append(title).append("\n\n```\n");
        if (g == null) {
            b.append("(no group)\n");
        } else if (g.members().size() > SHRINK_MAX_MEMBERS) {
            int parts = g.topics().stream().mapToInt(Group.TopicSpec::partitions).sum();
            String name = title.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "");
            String file = "chains/" + name.substring(0, Math.min(name.length(), 120)) + "-" + Integer.toHexString(title.hashCode()) + ".txt";
            StringBuilder full = new StringBuilder(g.describe());
            if (j != null) {
                full.append("java (kafka-clients), settled:\n").append(Plans.show(j.plan()));
            }
            if (l != null) {
                full.append("assignd, settled:\n").append(Plans.show(l.plan()));
            }
            try {
                java.nio.file.Files.createDirectories(java.nio.file.Path.of(System.getProperty("oracle.report", "target/oracle"), "chains"));
                Tally.write(file, full.toString());
            } catch (java.io.IOException e) {
                file = "(not written: " + e + ")";
            }
            b.append(String.format(Locale.ROOT, "protocol %s: %d members, %d topics, %d partitions; the group and both plans: %s%n",
                    g.protocol(), g.members().size(), g.topics().size(), parts, file));
        } else {
            b.append(g.describe());
            if (j != null) {
                b.append("java (kafka-clients), settled after ").append(j.followups()).append(" follow-ups:\n").append(Plans.show(j.plan()));
            }
            if (l != null) {
                b.append("assignd, settled after ").append(l.followups()).append(" follow-ups:\n").append(Plans.show(l.plan()));
            }
        }
        return b.append("```\n").toString();
    }

    @Override
    void check(ChainTally t) {
        assertTrue(t.invalid.isEmpty(), () -> t.protocol + ": invalid assignd plans:\n" + String.join("\n", t.invalid));
        assertTrue(t.assigndLivelocks.isEmpty(), () -> t.protocol + ": assignd never settled:\n" + String.join("\n", t.assigndLivelocks));
        assertTrue(t.layoutDiffers.isEmpty(), () -> t.protocol + ": plans differ:\n" + String.join("\n", t.layoutDiffers));
        assertTrue(t.assigndNoopRejoins == 0, () -> t.protocol + ": " + t.assigndNoopRejoins
                + " rounds in which a member lost a partition while assignd answered followup_required=false");
        int ceiling = MOVES_MORE_CEILING.get(t.protocol);
        assertTrue(t.movesMore <= ceiling, () -> String.format(Locale.ROOT,
                "%s: assignd moves more than Java in %d lockstep rounds, ceiling %d:%n%s", t.protocol, t.movesMore, ceiling,
                String.join("\n", t.movesMoreCases)));
    }

    /** The figures of one assignor's chains. */
    static final class ChainTally {
        final String protocol;
        final Map<String, Integer> chains = new TreeMap<>();
        int rounds;
        int eventRounds;
        long javaMoved;
        long assigndMoved;
        int javaFollowups;
        int assigndFollowups;
        int javaTwoOrMore;
        int assigndTwoOrMore;
        int assigndNoopRejoins;
        int javaInvalidRounds;
        long javaNanos;
        long assigndNanos;
        long javaMaxNanos;
        long assigndMaxNanos;
        final Map<String, long[]> nanosByShape = new TreeMap<>(); // java, assignd, rounds
        int joinRounds;
        long javaJoinSpread;
        long assigndJoinSpread;
        int javaJoinSpreadMax;
        int assigndJoinSpreadMax;
        int lockstepRounds;
        int lockstepExact;
        int lockstepJavaInvalid;
        int movesMore;
        int movesMoreBy;
        int movesFewer;
        int reproducersCut;
        double seconds;
        final List<String> invalid = new ArrayList<>();
        final List<String> assigndFailed = new ArrayList<>();
        final List<String> assigndLivelocks = new ArrayList<>();
        final List<String> layoutDiffers = new ArrayList<>();
        final List<String> movesMoreCases = new ArrayList<>();
        final List<String> javaInvalid = new ArrayList<>();
        final List<String> javaHangs = new ArrayList<>();
        final List<String> javaThrew = new ArrayList<>();
        final List<String> javaLivelocks = new ArrayList<>();
        final List<String> noopRejoins = new ArrayList<>();

        ChainTally(String protocol) {
            this.protocol = protocol;
        }

        void add(List<String> l, String s) {
            if (l.size() < MAX_REPRODUCERS) {
                l.add(s);
            } else {
                reproducersCut++;
            }
        }

        void add(String shape, List<Event> events, Settled j, Settled a, Settled l) {
            rounds++;
            if (!events.isEmpty()) {
                eventRounds++;
            }
            javaMoved += j.quality().moved();
            assigndMoved += a.quality().moved();
            javaFollowups += j.followups();
            assigndFollowups += a.followups();
            javaTwoOrMore += j.followups() >= 2 ? 1 : 0;
            assigndTwoOrMore += a.followups() >= 2 ? 1 : 0;
            assigndNoopRejoins += a.noopRejoins();
            javaNanos += j.nanos();
            assigndNanos += a.nanos();
            javaMaxNanos = Math.max(javaMaxNanos, j.nanos());
            assigndMaxNanos = Math.max(assigndMaxNanos, a.nanos());
            long[] n = nanosByShape.computeIfAbsent(shape, k -> new long[5]);
            n[0] += j.nanos();
            n[1] += a.nanos();
            n[2]++;
            n[3] = Math.max(n[3], j.nanos());
            n[4] = Math.max(n[4], a.nanos());
            if (events.stream().anyMatch(e -> e instanceof Chains.Join)) {
                joinRounds++;
                int js = ChainRunner.worstTopicSpread(j.start(), j.plan());
                int as = ChainRunner.worstTopicSpread(a.start(), a.plan());
                javaJoinSpread += js;
                assigndJoinSpread += as;
                javaJoinSpreadMax = Math.max(javaJoinSpreadMax, js);
                assigndJoinSpreadMax = Math.max(assigndJoinSpreadMax, as);
            }
        }

        static String summaryHeader() {
            return "| assignor | chains | rounds | moved: assignd / Java | follow-ups: assignd / Java | rounds with 2+ follow-ups: assignd / Java "
                    + "| invalid rounds: assignd / Java | Java hangs, throws, never settles | lockstep: same first plan | lockstep: assignd moves more / fewer "
                    + "| worst per-topic spread after a join, max (mean): assignd / Java | time per round, mean: assignd / Java | wall time |\n"
                    + "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
        }

        String summaryRow() {
            return String.format(Locale.ROOT, "| %s | %s | %d | %d / %d | %d / %d | %d / %d | %d / %d | %d, %d, %d | %d/%d | %d / %d | %d (%.2f) / %d (%.2f) | %.2f ms / %.2f ms | %.0f s |%n",
                    protocol, chains, rounds, assigndMoved, javaMoved, assigndFollowups, javaFollowups, assigndTwoOrMore, javaTwoOrMore,
                    invalid.size(), javaInvalidRounds, javaHangs.size(), javaThrew.size(), javaLivelocks.size(), lockstepExact, lockstepRounds,
                    movesMore, movesFewer, assigndJoinSpreadMax, joinRounds == 0 ? 0 : (double) assigndJoinSpread / joinRounds,
                    javaJoinSpreadMax, joinRounds == 0 ? 0 : (double) javaJoinSpread / joinRounds,
                    rounds == 0 ? 0 : assigndNanos / 1e6 / rounds, rounds == 0 ? 0 : javaNanos / 1e6 / rounds, seconds);
        }

        String markdown() {
            StringBuilder b = new StringBuilder("## ").append(protocol).append("\n\n");
            b.append(String.format(Locale.ROOT, "- chains %s, %d rounds (%d with events), %.0f s%n", chains, rounds, eventRounds, seconds));
            b.append(String.format(Locale.ROOT, "- partitions moved from live owners: assignd %d, Java %d (each side on its own chain)%n", assigndMoved, javaMoved));
            b.append(String.format(Locale.ROOT, "- follow-up rebalances: assignd %d, Java %d; rounds needing two or more: assignd %d, Java %d%n",
                    assigndFollowups, javaFollowups, assigndTwoOrMore, javaTwoOrMore));
            b.append(String.format(Locale.ROOT, "- rejoins nobody needed (a member lost a partition, assignd answered followup_required=false): %d%n", assigndNoopRejoins));
            b.append(String.format(Locale.ROOT, "- lockstep (assignd on Java's input): same first plan %d/%d; assignd moves more with no better balance or locality %d rounds (%d partitions), fewer %d rounds; "
                            + "not compared on moves, Java's settled plan invalid: %d rounds%n",
                    lockstepExact, lockstepRounds, movesMore, movesMoreBy, movesFewer, lockstepJavaInvalid));
            b.append(String.format(Locale.ROOT, "- rounds with a join: %d; worst per-topic spread after it, max (mean): assignd %d (%.2f), Java %d (%.2f)%n",
                    joinRounds, assigndJoinSpreadMax, joinRounds == 0 ? 0 : (double) assigndJoinSpread / joinRounds,
                    javaJoinSpreadMax, joinRounds == 0 ? 0 : (double) javaJoinSpread / joinRounds));
            b.append("- time per round (all calls of the round, follow-ups included), mean and max:\n\n");
            b.append("  | shape | rounds | assignd mean | assignd max | Java mean | Java max |\n  | --- | --- | --- | --- | --- | --- |\n");
            nanosByShape.forEach((s, n) -> b.append(String.format(Locale.ROOT, "  | %s | %d | %.2f ms | %.1f ms | %.2f ms | %.1f ms |%n",
                    s, n[2], n[1] / 1e6 / n[2], n[4] / 1e6, n[0] / 1e6 / n[2], n[3] / 1e6)));
            b.append(String.format(Locale.ROOT, "%n- Java's own failures: %d rounds with an invalid plan, %d hangs, %d exceptions, %d rounds that never settled%n",
                    javaInvalidRounds, javaHangs.size(), javaThrew.size(), javaLivelocks.size()));
            if (reproducersCut > 0) {
                b.append(String.format(Locale.ROOT, "- %d reproducers not printed (%d per kind)%n", reproducersCut, MAX_REPRODUCERS));
            }
            b.append('\n');
            section(b, "Invalid assignd plans", invalid);
            section(b, "assignd failures", assigndFailed);
            section(b, "assignd rounds that never settled", assigndLivelocks);
            section(b, "Rejoins nobody needed (followup_required=false, a member lost a partition)", noopRejoins);
            section(b, "Plans that differ (range, roundrobin)", layoutDiffers);
            section(b, "assignd moves more than Java (lockstep, shrunk)", movesMoreCases);
            section(b, "Java's invalid plans (shrunk)", javaInvalid);
            section(b, "Java hangs", javaHangs);
            section(b, "Java exceptions", javaThrew);
            section(b, "Java rounds that never settled", javaLivelocks);
            return b.toString();
        }

        private static void section(StringBuilder b, String title, List<String> l) {
            if (l.isEmpty()) {
                return;
            }
            b.append("### ").append(title).append("\n\n");
            l.forEach(s -> b.append(s).append('\n'));
        }
    }
}
