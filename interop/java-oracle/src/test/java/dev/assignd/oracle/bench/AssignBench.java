package dev.assignd.oracle.bench;

import dev.assignd.oracle.BenchSupport;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Java's CooperativeStickyAssignor in-process against the assignd leader
 * path, side by side in one run: the shim a Java leader configures
 * ({@code dev.assignd.kafka.AssigndCooperativeStickyAssignor} of
 * client/java, on the classpath as docs/java-oracle.md shows) from the same
 * inputs, to a real assignd over gRPC on 127.0.0.1 and back to each
 * member's partitions. The shim is loaded by name, so the oracle keeps no
 * build dependency on client/java. Not part of CI.
 *
 * <p>Scenarios, at three sizes: {@code 1m} is 500 topics × 2,000 partitions
 * over 2,000 members, {@code 100k} 200 topics × 500 over 200 members,
 * {@code 10} 3 topics × 32 over 10 members; {@code first} is a first
 * assignment, {@code leave} the balanced group with one member gone,
 * {@code join} with one member added.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class AssignBench {
    static final String SHIM = "dev.assignd.kafka.AssigndCooperativeStickyAssignor";

    @Param({"10-first", "10-leave", "10-join", "100k-first", "100k-leave", "100k-join", "1m-first", "1m-leave", "1m-join"})
    public String scenario;

    private Map<String, List<PartitionInfo>> ppt;
    private Map<String, Subscription> subs;
    private BenchSupport assignd;
    private AbstractPartitionAssignor shim;
    private Method buildRequest;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        String size = scenario.substring(0, scenario.indexOf('-'));
        int topics = switch (size) { case "1m" -> 500; case "100k" -> 200; default -> 3; };
        int partitions = switch (size) { case "1m" -> 2000; case "100k" -> 500; default -> 32; };
        int members = switch (size) { case "1m" -> 2000; case "100k" -> 200; default -> 10; };
        ppt = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            String name = String.format("topic-%04d", t);
            names.add(name);
            List<PartitionInfo> infos = new ArrayList<>(partitions);
            for (int p = 0; p < partitions; p++) {
                infos.add(new PartitionInfo(name, p, null, null, null));
            }
            ppt.put(name, infos);
        }
        boolean owned = !scenario.endsWith("first");
        int previous = scenario.endsWith("join") ? members - 1 : members;
        // The previous generation's balanced plan: partition i to member i mod n.
        List<List<TopicPartition>> plan = new ArrayList<>();
        for (int m = 0; m < previous; m++) {
            plan.add(new ArrayList<>());
        }
        int i = 0;
        for (String name : names) {
            for (int p = 0; p < partitions; p++) {
                plan.get(i++ % previous).add(new TopicPartition(name, p));
            }
        }
        subs = new LinkedHashMap<>();
        for (int m = 0; m < members; m++) {
            if (scenario.endsWith("leave") && m == members / 2) {
                continue;
            }
            String id = String.format("member-%05d", m);
            List<TopicPartition> own = owned && m < previous ? plan.get(m) : List.of();
            int gen = own.isEmpty() ? -1 : 7;
            CooperativeStickyAssignor a = new CooperativeStickyAssignor();
            if (gen >= 0) {
                a.onAssignment(new Assignment(own), new ConsumerGroupMetadata("bench", gen, id, Optional.empty()));
            }
            subs.put(id, new Subscription(names, a.subscriptionUserData(null), own, gen, Optional.empty()));
        }
        assignd = BenchSupport.start();
        shim = (AbstractPartitionAssignor) Class.forName(SHIM).getDeclaredConstructor().newInstance();
        // A deadline no size here reaches: a fallback would time Java, not assignd.
        ((Configurable) shim).configure(Map.of("assignd.target", assignd.target(), "assignd.deadline.ms", "600000",
                "group.id", "bench"));
        buildRequest = Class.forName("dev.assignd.kafka.AssignRequests").getDeclaredMethod("build",
                String.class, String.class, ConsumerPartitionAssignor.RebalanceProtocol.class, Map.class, Map.class);
        buildRequest.setAccessible(true);
    }

    @TearDown(Level.Iteration)
    public void afterIteration(IterationParams it) {
        if (it.getType() == IterationType.WARMUP) {
            BenchSupport.takeServerMillis(); // keep the measured iterations only
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        List<Double> server = BenchSupport.takeServerMillis();
        if (!server.isEmpty()) {
            Collections.sort(server);
            System.out.printf(Locale.ROOT, "%nassignd server time (decode+assign+encode, from its call log), %s: median %.3f ms over %d calls%n",
                    scenario, server.get(server.size() / 2), server.size());
        }
        Object stats = shim.getClass().getMethod("stats").invoke(shim);
        long fallbacks = (Long) stats.getClass().getMethod("getFallbacks").invoke(stats);
        assignd.close();
        if (fallbacks != 0) {
            throw new IllegalStateException(scenario + ": the shim fell back " + fallbacks + " times (" + stats + "); its figures time Java's assignor");
        }
    }

    /** Java's built-in assignor, as a Java leader runs it. */
    @Benchmark
    public Map<String, List<TopicPartition>> javaCooperativeSticky() {
        return new CooperativeStickyAssignor().assignPartitions(ppt, subs);
    }

    /** The leader path's own share: the shim's request built from Java's inputs and serialized, no call. */
    @Benchmark
    public byte[] assigndRequestOnly() throws ReflectiveOperationException {
        Object req = buildRequest.invoke(null, "bench", "cooperative-sticky", ConsumerPartitionAssignor.RebalanceProtocol.COOPERATIVE, ppt, subs);
        return ((com.google.protobuf.MessageLite) req).toByteArray();
    }

    /** assignd's leader path: the shim's request from the same inputs, the gRPC call, each member's partitions read back. */
    @Benchmark
    public Map<String, List<TopicPartition>> assigndLeaderPath() {
        return shim.assignPartitions(ppt, subs);
    }
}
