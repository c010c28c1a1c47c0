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

    static final class Range extends RangeAssignor {
        private boolean inJava;

        @Override
        public Map<String, List<TopicPartition>> assign(Map<String, Integer> ppt, Map<String, Subscription> subs) {
            return inJava ? super.assign(ppt, subs) : assignPartitions(partitionInfosWithoutRacks(ppt), subs);
        }

        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            if (inJava) {
                return super.assignPartitions(ppt, subs);
            }
            return AssigndBacked.run(name(), ppt, subs, () -> java(this, ppt, subs),
                    () -> java(new Range(), AssigndBacked.reversed(ppt), AssigndBacked.reversed(subs)));
        }

        private static Map<String, List<TopicPartition>> java(Range a, Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            a.inJava = true;
            rewindUserData(subs);
            try {
                return a.assignPartitions(ppt, subs);
            } finally {
                a.inJava = false;
            }
        }
    }

    static final class RoundRobin extends RoundRobinAssignor {
        private boolean inJava;

        @Override
        public Map<String, List<TopicPartition>> assign(Map<String, Integer> ppt, Map<String, Subscription> subs) {
            return inJava ? super.assign(ppt, subs) : assignPartitions(partitionInfosWithoutRacks(ppt), subs);
        }

        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            if (inJava) {
                return super.assignPartitions(ppt, subs);
            }
            return AssigndBacked.run(name(), ppt, subs, () -> java(this, ppt, subs),
                    () -> java(new RoundRobin(), AssigndBacked.reversed(ppt), AssigndBacked.reversed(subs)));
        }

        private static Map<String, List<TopicPartition>> java(RoundRobin a, Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            a.inJava = true;
            rewindUserData(subs);
            try {
                return a.assignPartitions(ppt, subs);
            } finally {
                a.inJava = false;
            }
        }
    }

    static final class Sticky extends StickyAssignor {
        private boolean inJava;

        @Override
        public Map<String, List<TopicPartition>> assign(Map<String, Integer> ppt, Map<String, Subscription> subs) {
            return inJava ? super.assign(ppt, subs) : assignPartitions(partitionInfosWithoutRacks(ppt), subs);
        }

        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            if (inJava) {
                return super.assignPartitions(ppt, subs);
            }
            return AssigndBacked.run(name(), ppt, subs, () -> java(this, ppt, subs),
                    () -> java(new Sticky(), AssigndBacked.reversed(ppt), AssigndBacked.reversed(subs)));
        }

        private static Map<String, List<TopicPartition>> java(Sticky a, Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            a.inJava = true;
            rewindUserData(subs);
            try {
                return a.assignPartitions(ppt, subs);
            } finally {
                a.inJava = false;
            }
        }
    }

    static final class CooperativeSticky extends CooperativeStickyAssignor {
        private boolean inJava;

        @Override
        public Map<String, List<TopicPartition>> assign(Map<String, Integer> ppt, Map<String, Subscription> subs) {
            return inJava ? super.assign(ppt, subs) : assignPartitions(partitionInfosWithoutRacks(ppt), subs);
        }

        @Override
        public Map<String, List<TopicPartition>> assignPartitions(Map<String, List<PartitionInfo>> ppt, Map<String, Subscription> subs) {
            if (inJava) {
                return super.assignPartitions(ppt, subs);
            }
            return AssigndBacked.run(name(), ppt, subs, () -> java(this, ppt, subs),
                    () -> java(new CooperativeSticky(), AssigndBacked.reversed(ppt), AssigndBacked.reversed(subs)));
        }

        private static Map<String, List<TopicPartition>> java(CooperativeSticky a, Map<String, List<PartitionInfo>> ppt,
                                                              Map<String, Subscription> subs) {
            a.inJava = true;
            rewindUserData(subs);
            try {
                return a.assignPartitions(ppt, subs);
            } finally {
                a.inJava = false;
            }
        }
    }
}
