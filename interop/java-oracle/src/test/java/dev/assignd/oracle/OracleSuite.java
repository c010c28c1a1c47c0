package dev.assignd.oracle;

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

    /** kafka-clients' assignors by protocol name, in the reports' order: a {@code @MethodSource}. */
    static Stream<String> clientProtocols() {
        return Stream.of("range", "roundrobin", "sticky", "cooperative-sticky");
    }

    /** The report's file name under target/oracle. */
    abstract String reportFile();

    /** The report, from what the suite's tests counted. */
    abstract String report();

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
            System.out.println("oracle report: " + Tally.write(reportFile(), report()));
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
