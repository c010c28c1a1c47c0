package dev.assignd.oracle.kafkasuites;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * kafka-clients' assignors with their assignment answered by assignd
 * ({@link AssigndBacked}). Both entry points Kafka's tests use, with and
 * without rack metadata, go to assignd; Java's own code runs beside it for
 * the comparison. Name, protocols and user data stay Java's.
 */
final class OracleAssignors {
    /**
     * Every Java run reads the members' user data from its start, as a
     * leader reads a buffer fresh from the wire: the Kafka tests hand one
     * Subscription to several runs (Java's, reversed, assignd's), and a
     * StickyAssignor run can leave its buffers' positions at their end
     * (it rewinds them itself only before reading them a second time).
     */
    static void rewindUserData(Map<String, Subscription> subs) {
        subs.values().forEach(s -> {
            if (s.userData() != null) {
                s.userData().rewind();
            }
        });
    }

    private OracleAssignors() {
    }

    /** One assignor run on partition metadata, as {@code assignPartitions} takes it. */
    interface Run {
        Map<String, List<TopicPartition>> assign(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs);
    }

    /**
     * Set while a built-in's own code runs on this thread: every assignor
     * here then answers as Java does (its overrides hand the call to super),
     * so the built-in's internal calls between {@code assign} and
     * {@code assignPartitions} stay inside Java.
     */
    private static final ThreadLocal<Boolean> IN_JAVA = ThreadLocal.withInitial(() -> false);

    static boolean inJava() {
        return IN_JAVA.get();
    }

    /**
     * assignd's answer, after Java's on the same input ({@code self}) and on
     * the maps reversed ({@code fresh}, a new instance so no state carries
     * over from the first run).
     */
    static Map<String, List<TopicPartition>> viaAssignd(String protocol, Map<String, List<PartitionInfo>> ppt,
                                                        Map<String, Subscription> subs, Run self, Run fresh) {
        return AssigndBacked.run(protocol, ppt, subs, () -> java(self, ppt, subs),
                () -> java(fresh, AssigndBacked.reversed(ppt), AssigndBacked.reversed(subs)));
    }

    private static Map<String, List<TopicPartition>> java(Run a, Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
        IN_JAVA.set(true);
        rewindUserData(subs);
        try {
            return a.assign(ppt, subs);
        } finally {
            IN_JAVA.set(false);
        }
    }

    /*
     * One subclass per built-in, because Kafka's tests take the concrete type.
     * RangeAssignor's and the sticky assignors' assign(partition counts) is
     * assignPartitions(partitionInfosWithoutRacks(counts)), so overriding
     * assignPartitions sends both entry points to assignd. RoundRobinAssignor
     * goes the other way (assignPartitions reduces to counts and calls
     * assign), so it overrides both.
     */

    static final class Range extends RangeAssignor {
        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            return inJava() ? super.assignPartitions(ppt, subs)
                    : viaAssignd(name(), ppt, subs, this::assignPartitions, new Range()::assignPartitions);
        }
    }

    static final class RoundRobin extends RoundRobinAssignor {
        @Override
        public Map<String, List<TopicPartition>> assign(Map<String, Integer> ppt, Map<String, Subscription> subs) {
            return inJava() ? super.assign(ppt, subs) : assignPartitions(partitionInfosWithoutRacks(ppt), subs);
        }

        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            return inJava() ? super.assignPartitions(ppt, subs)
                    : viaAssignd(name(), ppt, subs, this::assignPartitions, new RoundRobin()::assignPartitions);
        }
    }

    static final class Sticky extends StickyAssignor {
        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            return inJava() ? super.assignPartitions(ppt, subs)
                    : viaAssignd(name(), ppt, subs, this::assignPartitions, new Sticky()::assignPartitions);
        }
    }

    static final class CooperativeSticky extends CooperativeStickyAssignor {
        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            return inJava() ? super.assignPartitions(ppt, subs)
                    : viaAssignd(name(), ppt, subs, this::assignPartitions, new CooperativeSticky()::assignPartitions);
        }
    }
}
