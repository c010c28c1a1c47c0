package org.apache.kafka.common.utils;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A bridge for Kafka's own assignor tests (KafkaSuitesTest). Maven Central
 * serves kafka-clients' test jar only up to 4.3.1, whose
 * StickyAssignorTest and AbstractStickyAssignorTest call this one helper;
 * kafka-clients 4.4.0, the oracle's release, dropped the class (its
 * StickyAssignor groups the partitions inline). This is that helper,
 * written here so those tests run against 4.4.0's assignors.
 */
public final class CollectionUtils {
    private CollectionUtils() {
    }

    /** The partition numbers of each topic, in the order given. */
    public static Map<String, List<Integer>> groupPartitionsByTopic(Collection<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new HashMap<>();
        for (TopicPartition tp : partitions) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        return byTopic;
    }
}
