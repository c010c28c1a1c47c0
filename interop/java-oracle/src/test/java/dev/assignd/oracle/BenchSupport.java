package dev.assignd.oracle;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.PartitionInfo;

/** The oracle's assignd process and caller, for the JMH benchmark in another package. */
public final class BenchSupport implements AutoCloseable {
    private final AssigndProcess server;
    private final AssigndCaller caller;

    private BenchSupport(AssigndProcess server, AssigndCaller caller) {
        this.server = server;
        this.caller = caller;
    }

    public static BenchSupport start() throws Exception {
        AssigndProcess p = AssigndProcess.start();
        return new BenchSupport(p, new AssigndCaller(p.target()));
    }

    public static AssignRequest request(String protocol, Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs,
                                        AssignmentView view) {
        return AssigndCaller.request(protocol, ppt, subs, view);
    }

    /** host:port of the assignd process. */
    public String target() {
        return server.target();
    }

    public AssignResponse call(AssignRequest req) {
        return caller.call(req, 600_000);
    }

    /** Server-side times of the Assign calls since the last take, in ms (assignd's call log). */
    public static List<Double> takeServerMillis() {
        return AssigndProcess.takeServerMillis();
    }

    @Override
    public void close() throws Exception {
        caller.close();
        server.close();
    }
}
