package dev.assignd.oracle.bench;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import dev.assignd.oracle.BenchSupport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Locale;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
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
 * Java's CooperativeStickyAssignor in-process against assignd's leader path
 * (build the explicit-member request from the same inputs, call a real
 * assignd over gRPC on 127.0.0.1, receive the encoded assignments), side by
 * side in one run. Not part of CI; docs/java-oracle.md has the command.
 *
 * <p>Scenarios: a first assignment of 500 topics × 2,000 partitions over
 * 2,000 members; that group, balanced, with one member gone; with one member
 * added; and a 10-member group on 3 topics × 32 after one member joined.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class AssignBench {
    @Param({"small-join", "1m-first", "1m-leave", "1m-join"})
    public String scenario;

    private Map<String, List<PartitionInfo>> ppt;
    private Map<String, Subscription> subs;
    private BenchSupport assignd;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        boolean big = scenario.startsWith("1m");
        int topics = big ? 500 : 3;
        int partitions = big ? 2000 : 32;
        int members = big ? 2000 : 10;
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
        assignd.close();
    }

    /** Java's built-in assignor, as a Java leader runs it. */
    @Benchmark
    public Map<String, List<TopicPartition>> javaCooperativeSticky() {
        return new CooperativeStickyAssignor().assignPartitions(ppt, subs);
    }

    /** The leader path's own share: the request built from Java's inputs and serialized, no call. */
    @Benchmark
    public byte[] assigndRequestOnly() {
        return BenchSupport.request("cooperative-sticky", ppt, subs, AssignmentView.ASSIGNMENT_VIEW_ENCODED).toByteArray();
    }

    /** assignd's leader path: request from the same inputs, gRPC call, encoded assignments. */
    @Benchmark
    public AssignResponse assigndLeaderPath() {
        AssignRequest req = BenchSupport.request("cooperative-sticky", ppt, subs, AssignmentView.ASSIGNMENT_VIEW_ENCODED);
        return assignd.call(req);
    }
}
