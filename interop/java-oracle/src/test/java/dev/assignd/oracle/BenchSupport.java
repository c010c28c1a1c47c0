package dev.assignd.oracle;

import java.util.List;

/** The oracle's assignd process, for the JMH benchmark in another package. */
public final class BenchSupport implements AutoCloseable {
    private final AssigndProcess server;

    private BenchSupport(AssigndProcess server) {
        this.server = server;
    }

    public static BenchSupport start() throws Exception {
        return new BenchSupport(AssigndProcess.start());
    }

    /** host:port of the assignd process. */
    public String target() {
        return server.target();
    }

    /** Server-side times of the Assign calls since the last take, in ms (assignd's call log). */
    public static List<Double> takeServerMillis() {
        return AssigndProcess.takeServerMillis();
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
