package dev.assignd.oracle;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A suite of kafka-clients' four assignors: one test per protocol name,
 * which counts what it finds in the protocol's tally and then checks it;
 * the report shows every tally, in the tests' order.
 *
 * @param <T> what the suite counts per assignor
 */
abstract class ClientOracleSuite<T> extends OracleSuite {
    final Map<String, T> tallies = new LinkedHashMap<>();
    private final Function<String, T> tally;

    /** tally makes a protocol's new tally. */
    ClientOracleSuite(String reportFile, Function<String, T> tally) {
        super(reportFile);
        this.tally = tally;
    }

    /** Runs the suite on protocol's assignor, counting into t. */
    abstract void run(String protocol, T t);

    /** Fails the test on what t counted that the suite does not accept. */
    abstract void check(T t);

    @ParameterizedTest(name = "{0}")
    @MethodSource("clientProtocols")
    void assignor(String protocol) {
        T t = tally.apply(protocol);
        tallies.put(protocol, t);
        run(protocol, t);
        check(t);
    }
}
