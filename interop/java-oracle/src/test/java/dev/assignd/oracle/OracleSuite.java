package dev.assignd.oracle;

import java.util.Collection;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * What every oracle suite shares: one real assignd for the class and a
 * caller to it, and the suite's report under target/oracle, written when
 * the class ends, before assignd stops.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OracleSuite {
    AssigndProcess server;
    AssigndCaller caller;
    /** The report's file name under target/oracle. */
    private final String reportFile;

    OracleSuite(String reportFile) {
        this.reportFile = reportFile;
    }

    /** kafka-clients' assignors by protocol name, in the reports' order: a {@code @MethodSource}. */
    static Stream<String> clientProtocols() {
        return Stream.of("range", "roundrobin", "sticky", "cooperative-sticky");
    }

    /** The report, from what the suite's tests counted. */
    abstract String report();

    /**
     * A report of one table row per assignor, then each assignor's
     * details: the title, a sentence on what ran (against which versions),
     * the table's head (its two header lines) and what each tally gives.
     */
    static <T> String report(String title, String ran, String head, Collection<T> tallies, Function<T, String> row,
            Function<T, String> details) {
        StringBuilder b = new StringBuilder("# ").append(title).append("\n\n").append(ran).append("\n\n").append(head);
        tallies.forEach(t -> b.append(row.apply(t)));
        b.append('\n');
        tallies.forEach(t -> b.append(details.apply(t)));
        return b.toString();
    }

    /** Runs once assignd is up, before the tests: what needs the caller. */
    void started() {
    }

    @BeforeAll
    final void startAssignd() throws Exception {
        server = AssigndProcess.start();
        caller = new AssigndCaller(server.target());
        started();
    }

    @AfterAll
    final void stopAssignd() throws Exception {
        try {
            System.out.println("oracle report: " + Tally.write(reportFile, report()));
        } finally {
            if (caller != null) {
                caller.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }
}
