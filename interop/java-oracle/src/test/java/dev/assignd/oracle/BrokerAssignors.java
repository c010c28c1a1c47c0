package dev.assignd.oracle;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/**
 * Runs the broker's own server-side assignors (kafka-group-coordinator's
 * UniformAssignor and RangeAssignor) on a {@link Kip848Groups.Group}, through
 * the plug-in interface the coordinator calls them by: a GroupSpec and a
 * SubscribedTopicDescriber built here as the coordinator builds them.
 *
 * <p>The broker iterates hash maps and sets: members by member id hash,
 * topics by topic-id hash, partitions in hash-set order. assignd fixes those
 * orders (members by id, topics by name, partitions ascending). In the
 * canonical mode (hashOrder null) this class hands the broker's code exactly
 * those orders: linked maps and sorted sets, and topic ids whose hash and
 * natural orders are the name order, which is what an exact match can be
 * asked of. With a Random it uses random topic ids and hash maps and sets,
 * as a broker does, to measure how often the broker's own answer depends on
 * them.
 */
final class BrokerAssignors {
    private BrokerAssignors() {
    }

    /** member id → topic name → partitions; every member present. */
    static Map<String, Map<String, SortedSet<Integer>>> run(PartitionAssignor assignor, Kip848Groups.Group g, Random hashOrder) {
        boolean canonical = hashOrder == null;
        Map<String, Uuid> ids = new HashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        long k = 2; // (0, 0) and (0, 1) are reserved ids
        Set<String> subscribed = new HashSet<>();
        g.members().forEach(m -> subscribed.addAll(m.topics()));
        List<Kip848Groups.Topic> byName = new java.util.ArrayList<>(g.topics()); // sorted by name
        // Subscribed topics first: they are the ones the builders' hash
        // sets hold, so their k stay below the sets' capacity.
        byName.sort((a, b) -> Boolean.compare(!subscribed.contains(a.name()), !subscribed.contains(b.name())));
        for (Kip848Groups.Topic t : byName) {
            // Uuid(0, k): hashCode k, so a HashSet whose capacity exceeds
            // every k iterates them by k, and compareTo orders them by k.
            Uuid id = canonical ? new Uuid(0L, k++) : new Uuid(hashOrder.nextLong(), hashOrder.nextLong());
            ids.put(t.name(), id);
            names.put(id, t.name());
            counts.put(id, t.partitions());
        }
        Map<String, MemberSubscription> subs = canonical ? new LinkedHashMap<>() : new HashMap<>();
        Map<String, MemberAssignment> current = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (Kip848Groups.Member m : g.members()) { // sorted by id
            Set<Uuid> topicIds = canonical ? new LinkedHashSet<>() : new HashSet<>();
            for (Kip848Groups.Topic t : g.topics()) {
                if (m.topics().contains(t.name())) {
                    topicIds.add(ids.get(t.name()));
                }
            }
            Optional<String> inst = Optional.ofNullable(m.instanceId());
            Set<Uuid> frozen = Collections.unmodifiableSet(topicIds);
            subs.put(m.id(), new MemberSubscription() {
                @Override
                public Optional<String> rackId() {
                    return Optional.empty();
                }

                @Override
                public Optional<String> instanceId() {
                    return inst;
                }

                @Override
                public Set<Uuid> subscribedTopicIds() {
                    return frozen;
                }
            });
            Map<Uuid, Set<Integer>> parts = canonical ? new LinkedHashMap<>() : new HashMap<>();
            m.current().forEach((topic, ps) -> { // sorted by name
                Uuid id = ids.get(topic);
                if (id == null) {
                    return; // a topic the metadata no longer has
                }
                Set<Integer> s = canonical ? new TreeSet<>() : new HashSet<>();
                for (int p : ps) {
                    if (p < counts.get(id)) {
                        s.add(p);
                        inverted.computeIfAbsent(id, x -> new HashMap<>()).put(p, m.id());
                    }
                }
                if (!s.isEmpty()) {
                    parts.put(id, s);
                }
            });
            Map<Uuid, Set<Integer>> frozenParts = Collections.unmodifiableMap(parts);
            current.put(m.id(), () -> frozenParts);
        }
        SubscriptionType type = g.homogeneous() ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
        GroupSpec spec = new GroupSpec() {
            @Override
            public Collection<String> memberIds() {
                return subs.keySet();
            }

            @Override
            public SubscriptionType subscriptionType() {
                return type;
            }

            @Override
            public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
                Map<Integer, String> m = inverted.get(topicId);
                return m != null && m.containsKey(partitionId);
            }

            @Override
            public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
                return true;
            }

            @Override
            public MemberSubscription memberSubscription(String memberId) {
                return subs.get(memberId);
            }

            @Override
            public MemberAssignment memberAssignment(String memberId) {
                return current.get(memberId);
            }
        };
        SubscribedTopicDescriber describer = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return counts.getOrDefault(topicId, -1);
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Set.of();
            }
        };
        GroupAssignment ga = assignor.assign(spec, describer);
        Map<String, Map<String, SortedSet<Integer>>> out = new TreeMap<>();
        for (Kip848Groups.Member m : g.members()) {
            Map<String, SortedSet<Integer>> a = new TreeMap<>();
            MemberAssignment ma = ga.members().get(m.id());
            if (ma != null) {
                ma.partitions().forEach((id, ps) -> {
                    if (!ps.isEmpty()) {
                        a.put(names.get(id), new TreeSet<>(ps));
                    }
                });
            }
            out.put(m.id(), a);
        }
        return out;
    }

    /** The plan's problems: a partition of a subscribed topic unassigned, twice, or to a non-subscriber. */
    static List<String> violations(Kip848Groups.Group g, Map<String, Map<String, SortedSet<Integer>>> plan) {
        List<String> out = new java.util.ArrayList<>();
        Map<String, Kip848Groups.Member> byId = new HashMap<>();
        g.members().forEach(m -> byId.put(m.id(), m));
        Set<String> subscribed = new HashSet<>();
        g.members().forEach(m -> subscribed.addAll(m.topics()));
        Map<String, String> owner = new HashMap<>();
        plan.forEach((id, a) -> a.forEach((topic, ps) -> {
            Kip848Groups.Member m = byId.get(id);
            if (m == null || !m.topics().contains(topic)) {
                out.add(topic + " to " + id + ", which does not subscribe to it");
            }
            for (int p : ps) {
                String prev = owner.put(topic + "-" + p, id);
                if (prev != null) {
                    out.add(topic + "-" + p + " to both " + prev + " and " + id);
                }
            }
        }));
        for (Kip848Groups.Topic t : g.topics()) {
            if (!subscribed.contains(t.name())) {
                continue;
            }
            for (int p = 0; p < t.partitions(); p++) {
                if (!owner.containsKey(t.name() + "-" + p)) {
                    out.add(t.name() + "-" + p + " unassigned");
                }
            }
        }
        return out;
    }
}
