package dev.assignd.oracle;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.assignd.oracle.kafkasuites.AssigndBacked;
import dev.assignd.oracle.kafkasuites.Suites;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.support.descriptor.MethodSource;

/**
 * Kafka's own assignor tests (kafka-clients' test jar), run with the assignor
 * answered by a real assignd: where a test asserts on the result, it judges
 * assignd's plan; every call also runs Java's assignor on the same input and
 * records whether the plans match. Report: target/oracle/kafka-tests.md.
 *
 * <p>Fails the build when an assignd plan breaks an invariant, or when fewer
 * Kafka tests pass on assignd than {@link #PASSING_FLOOR} (measured).
 */
class KafkaSuitesTest extends OracleSuite {
    /**
     * Kafka tests measured passing on assignd (the 4.3.1 test jar against
     * kafka-clients 4.4.0, the large ones excluded), per suite. A drop is
     * a regression.
     */
    static final Map<String, Integer> PASSING_FLOOR = Map.of(
            "RangeOnAssignd", 44, // of 44
            "RoundRobinOnAssignd", 13, // of 13
            "StickyOnAssignd", 126, // of 130
            "CooperativeStickyOnAssignd", 107); // of 111

    /**
     * Tests left out unless -Doracle.kafka.large=true, to keep CI short: groups
     * of up to a million partitions, run several times each, and 100 rounds
     * of random subscription changes (about 20 s per case here; the random
     * harness covers that ground).
     */
    static final List<String> LARGE = List.of("testLargeAssignmentAndGroupWithUniformSubscription",
            "testLargeAssignmentAndGroupWithNonEqualSubscription", "testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout",
            "testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription",
            "testReassignmentWithRandomSubscriptionsAndChanges");

    private final Map<String, SuiteResult> results = new LinkedHashMap<>();

    /** Per Kafka test: outcome, and how many assignor calls it made. */
    record TestRun(String name, String status, String message, int calls, int exact, int orderDependent, int invalid, long millis) {
    }

    record SuiteResult(String suite, List<TestRun> runs) {
        long passed() {
            return runs.stream().filter(r -> r.status().equals("SUCCESSFUL")).count();
        }
    }

    @Override
    void started() {
        AssigndBacked.use(caller::assign);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(classes = {Suites.RangeOnAssignd.class, Suites.RoundRobinOnAssignd.class, Suites.StickyOnAssignd.class,
            Suites.CooperativeStickyOnAssignd.class})
    void suite(Class<?> suite) {
        check(run(suite));
    }

    private SuiteResult run(Class<?> suite) {
        boolean large = Boolean.getBoolean("oracle.kafka.large");
        PostDiscoveryFilter skipLarge = d -> d.getSource()
                .filter(s -> s instanceof MethodSource ms && !large && LARGE.contains(ms.getMethodName()))
                .map(s -> FilterResult.excluded("large"))
                .orElse(FilterResult.included("ok"));
        LauncherDiscoveryRequest req = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(suite))
                .filters(skipLarge)
                .build();
        List<TestRun> runs = new ArrayList<>();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(req, new TestExecutionListener() {
            private int before;
            private long started;

            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.isTest()) {
                    AssigndBacked.currentTest(suite.getSimpleName() + "#" + name(id));
                    before = AssigndBacked.calls().size();
                    started = System.nanoTime();
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest()) {
                    return;
                }
                List<AssigndBacked.Call> calls = AssigndBacked.calls();
                List<AssigndBacked.Call> mine = calls.subList(before, calls.size());
                String msg = result.getThrowable().map(t -> t.getClass().getSimpleName() + ": "
                        + String.valueOf(t.getMessage()).lines().findFirst().orElse("") + where(t)).orElse("");
                runs.add(new TestRun(name(id), result.getStatus().name(), msg, mine.size(),
                        (int) mine.stream().filter(AssigndBacked.Call::exact).count(),
                        (int) mine.stream().filter(AssigndBacked.Call::orderDependent).count(),
                        (int) mine.stream().filter(c -> !c.violations().isEmpty()).count(),
                        (System.nanoTime() - started) / 1_000_000));
            }
        });
        SuiteResult r = new SuiteResult(suite.getSimpleName(), runs);
        results.put(r.suite(), r);
        System.out.printf(Locale.ROOT, "%s: %d/%d Kafka tests pass on assignd%n", r.suite(), r.passed(), runs.size());
        return r;
    }

    /**
     * " at Class.java:N", the frame of Kafka's test class that failed: the
     * line tells which of a test's assertions did (Kafka's sources of the
     * pinned version), and so whether it judges assignd's plan or the Java
     * assignor's own state.
     */
    private static String where(Throwable t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("org.apache.kafka.clients.consumer") && e.getClassName().endsWith("Test")) {
                return " at " + e.getFileName() + ":" + e.getLineNumber();
            }
        }
        return "";
    }

    /** "testX" or "testX(RackConfig=...)" for a parameterized case. */
    private static String name(TestIdentifier id) {
        String method = id.getSource().filter(s -> s instanceof MethodSource).map(s -> ((MethodSource) s).getMethodName()).orElse("?");
        String display = id.getDisplayName();
        return display.startsWith(method) ? display : method + " " + display;
    }

    private static void check(SuiteResult r) {
        List<String> invalid = new ArrayList<>();
        for (AssigndBacked.Call c : AssigndBacked.calls()) {
            if (!c.violations().isEmpty() && c.test().startsWith(r.suite() + "#")) {
                invalid.add(c.test() + ": " + c.violations() + "\n" + c.input());
            }
        }
        Assertions.assertTrue(invalid.isEmpty(), () -> r.suite() + ": invalid assignd plans:\n" + String.join("\n", invalid));
        int floor = PASSING_FLOOR.get(r.suite());
        Assertions.assertTrue(r.passed() >= floor, () -> r.suite() + ": " + r.passed() + " Kafka tests pass on assignd, floor " + floor);
    }

    KafkaSuitesTest() {
        super("kafka-tests.md");
    }

    @Override
    String report() {
        StringBuilder b = new StringBuilder("# Kafka's own assignor tests, answered by assignd\n\n");
        b.append("Each test's assignor answers with assignd's plan (so the test's assertions judge assignd) and also runs Java's on the same input. ")
                .append("Tests that make no assignor call assert on Java internals (user data codecs, MemberData, generation decoding) and do not exercise assignd. ")
                .append("Left out: ").append(Boolean.getBoolean("oracle.kafka.large") ? "nothing" : String.join(", ", LARGE) + " (-Doracle.kafka.large=true runs them)")
                .append(".\n\n");
        b.append("| suite | tests | pass on assignd | tests calling the assignor | calls | exact match (order-independent calls) | order-dependent calls |\n");
        b.append("| --- | --- | --- | --- | --- | --- | --- |\n");
        for (SuiteResult r : results.values()) {
            int calls = r.runs().stream().mapToInt(TestRun::calls).sum();
            int exact = r.runs().stream().mapToInt(TestRun::exact).sum();
            int od = r.runs().stream().mapToInt(TestRun::orderDependent).sum();
            long calling = r.runs().stream().filter(t -> t.calls() > 0).count();
            b.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d/%d | %d |%n", r.suite(), r.runs().size(), r.passed(), calling, calls,
                    exact, calls - od, od));
        }
        b.append('\n');
        for (SuiteResult r : results.values()) {
            b.append("## ").append(r.suite()).append("\n\n");
            Map<String, List<String>> failing = new TreeMap<>();
            List<String> internal = new ArrayList<>();
            for (TestRun t : r.runs()) {
                if (t.calls() == 0) {
                    internal.add(t.name() + " (" + t.status().toLowerCase(Locale.ROOT) + ")");
                } else if (!t.status().equals("SUCCESSFUL")) {
                    String m = t.message();
                    int at = m.lastIndexOf(" at ");
                    String key = at < 0 ? m.replaceAll("\\d+", "N") : m.substring(0, at).replaceAll("\\d+", "N");
                    if (key.length() > 160) {
                        key = key.substring(0, 160) + "...";
                    }
                    failing.computeIfAbsent(key + (at < 0 ? "" : m.substring(at)), k -> new ArrayList<>()).add(t.name());
                }
            }
            b.append("Slowest: ").append(String.join(", ", r.runs().stream().sorted((x, y) -> Long.compare(y.millis(), x.millis())).limit(3)
                    .map(t -> t.name() + " " + t.millis() + " ms").toList())).append("\n\n");
            b.append("Fail on assignd, by failure:\n\n");
            failing.forEach((m, l) -> b.append("- `").append(m).append("`: ")
                    .append(l.size()).append(" — ").append(String.join(", ", l)).append('\n'));
            b.append("\nNo assignor call (assert on Java internals, not usable against assignd): ")
                    .append(internal.isEmpty() ? "none" : String.join(", ", internal)).append("\n\n");
            List<AssigndBacked.Call> mism = AssigndBacked.calls().stream()
                    .filter(c -> c.test().startsWith(r.suite() + "#") && !c.orderDependent() && !c.exact()).toList();
            for (AssigndBacked.Call c : mism) {
                b.append("Mismatch in ").append(c.test()).append(":\n\n```\n")
                        .append(c.input()).append("java:\n").append(Plans.show(c.java())).append("assignd:\n").append(Plans.show(c.assignd()))
                        .append("```\n\n");
            }
        }
        return b.toString();
    }
}
