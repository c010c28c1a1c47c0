package dev.assignd.oracle.kafkasuites;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * The bridge between Kafka's own assignor tests and assignd: an assignor
 * built on it answers every call with assignd's plan (so the test's
 * assertions judge assignd), after running Java's assignor on the same input
 * and recording how the two compare.
 */
public final class AssigndBacked {
    /** Answers one call: protocol name, partitions per topic, subscriptions. */
    public interface Service {
        Map<String, List<TopicPartition>> assign(String protocol, Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs);
    }

    /** One call a Kafka test made. */
    public record Call(String test, String protocol, boolean orderDependent, boolean exact, List<String> violations,
                       String input, Map<String, List<TopicPartition>> java, Map<String, List<TopicPartition>> assignd) {
    }

    private static volatile Service service;
    private static volatile String currentTest = "?";
    private static final List<Call> CALLS = Collections.synchronizedList(new ArrayList<>());

    private AssigndBacked() {
    }

    public static void use(Service s) {
        service = s;
    }

    public static void currentTest(String name) {
        currentTest = name;
    }

    public static List<Call> calls() {
        synchronized (CALLS) {
            return new ArrayList<>(CALLS);
        }
    }

    /**
     * Runs Java (twice: as given and with the maps reversed, to see whether
     * its answer depends on their order), then assignd, records the
     * comparison and returns assignd's plan.
     */
    static Map<String, List<TopicPartition>> run(String protocol, Map<String, List<PartitionInfo>> ppt,
                                                 Map<String, Subscription> subs,
                                                 Supplier<Map<String, List<TopicPartition>>> java,
                                                 Supplier<Map<String, List<TopicPartition>>> javaReversed) {
        Map<String, List<TopicPartition>> j = sorted(java.get());
        boolean orderDependent = !sorted(javaReversed.get()).equals(j);
        Map<String, List<TopicPartition>> a = service.assign(protocol, ppt, subs);
        Map<String, List<TopicPartition>> as = sorted(a);
        List<String> v = violations(protocol, ppt, subs, as);
        CALLS.add(new Call(currentTest, protocol, orderDependent, !orderDependent && as.equals(j), v,
                describe(ppt, subs), j, as));
        return inJavaOrder(a, java.get());
    }

    /**
     * assignd's plan, each member's list in Java's order where it holds the
     * same partitions as Java's: the order of an assignment's partitions means
     * nothing in the protocol, but some of Kafka's tests compare lists.
     */
    private static Map<String, List<TopicPartition>> inJavaOrder(Map<String, List<TopicPartition>> a, Map<String, List<TopicPartition>> j) {
        Map<String, List<TopicPartition>> out = new HashMap<>();
        a.forEach((m, l) -> {
            List<TopicPartition> jl = j.get(m);
            out.put(m, jl != null && new HashSet<>(jl).equals(new HashSet<>(l)) && jl.size() == l.size() ? new ArrayList<>(jl) : l);
        });
        return out;
    }

    static <K, V> Map<K, V> reversed(Map<K, V> m) {
        List<Map.Entry<K, V>> es = new ArrayList<>(m.entrySet());
        Collections.reverse(es);
        Map<K, V> out = new LinkedHashMap<>();
        es.forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /**
     * What every plan must satisfy whatever the assignor: each partition at
     * most once, only to a subscriber, every member present; under EAGER
     * every partition of a subscribed topic assigned. (The full cooperative
     * safety check runs in the random harness, where ownership is modelled.)
     */
    static List<String> violations(String protocol, Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs,
                                   Map<String, List<TopicPartition>> plan) {
        List<String> out = new ArrayList<>();
        if (!plan.keySet().equals(subs.keySet())) {
            out.add("members " + plan.keySet() + " are not the group's " + subs.keySet());
        }
        Set<TopicPartition> seen = new HashSet<>();
        plan.forEach((m, tps) -> {
            Subscription s = subs.get(m);
            for (TopicPartition tp : tps) {
                if (!seen.add(tp)) {
                    out.add(tp + " assigned twice");
                }
                if (s != null && !s.topics().contains(tp.topic())) {
                    out.add(tp + " assigned to non-subscriber " + m);
                }
            }
        });
        if (!"cooperative-sticky".equals(protocol)) {
            Set<String> subscribed = new HashSet<>();
            subs.values().forEach(s -> subscribed.addAll(s.topics()));
            ppt.forEach((t, infos) -> {
                if (subscribed.contains(t)) {
                    for (PartitionInfo pi : infos) {
                        if (!seen.contains(new TopicPartition(t, pi.partition()))) {
                            out.add(t + "-" + pi.partition() + " not assigned");
                        }
                    }
                }
            });
        }
        return out;
    }

    static Map<String, List<TopicPartition>> sorted(Map<String, List<TopicPartition>> plan) {
        Map<String, List<TopicPartition>> out = new TreeMap<>();
        plan.forEach((m, l) -> {
            List<TopicPartition> c = new ArrayList<>(l);
            c.sort((x, y) -> x.topic().equals(y.topic()) ? Integer.compare(x.partition(), y.partition()) : x.topic().compareTo(y.topic()));
            out.put(m, c);
        });
        return out;
    }

    private static String describe(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
        StringBuilder b = new StringBuilder();
        Map<String, Integer> counts = new TreeMap<>();
        ppt.forEach((t, l) -> counts.put(t, l.size()));
        b.append("  partitions per topic ").append(counts).append('\n');
        new TreeMap<>(subs).forEach((m, s) -> {
            b.append("  member ").append(m).append(" topics=").append(s.topics());
            if (!s.ownedPartitions().isEmpty()) {
                b.append(" owned=").append(s.ownedPartitions());
            }
            s.generationId().ifPresent(g -> b.append(" generation=").append(g));
            s.rackId().ifPresent(r -> b.append(" rack=").append(r));
            s.groupInstanceId().ifPresent(i -> b.append(" instance=").append(i));
            if (s.userData() != null && s.userData().limit() > 0) {
                b.append(" userData=").append(s.userData().limit()).append("B");
            }
            b.append('\n');
        });
        if (b.length() > 4000) {
            return b.substring(0, 4000) + "  ... (" + subs.size() + " members)\n";
        }
        return b.toString();
    }

    static Map<String, Integer> counts(Map<String, List<PartitionInfo>> ppt) {
        Map<String, Integer> out = new HashMap<>();
        ppt.forEach((t, l) -> out.put(t, l.size()));
        return out;
    }
}
