package dev.assignd.oracle;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.common.TopicPartition;

/** kafka-clients' built-in assignors, by protocol name, run in-process. */
final class JavaAssignors {
    static final List<String> NAMES = List.of("range", "roundrobin", "sticky", "cooperative-sticky");

    private JavaAssignors() {
    }

    /** A fresh assignor: the sticky ones keep state between calls. */
    static AbstractPartitionAssignor create(String protocolName) {
        return switch (protocolName) {
            case "range" -> new RangeAssignor();
            case "roundrobin" -> new RoundRobinAssignor();
            case "sticky" -> new StickyAssignor();
            case "cooperative-sticky" -> new CooperativeStickyAssignor();
            default -> throw new IllegalArgumentException("no Java assignor named " + protocolName);
        };
    }

    /** Java's plan for the inputs, as a leader's assignor computes it. */
    static Map<String, List<TopicPartition>> assign(String protocolName, Group.JavaInputs in) {
        return create(protocolName).assignPartitions(in.partitionsPerTopic(), in.subscriptions());
    }
}
