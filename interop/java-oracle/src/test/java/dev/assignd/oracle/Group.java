package dev.assignd.oracle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * One rebalance of one group, as the single model both sides are built from:
 * {@link #javaInputs} gives what a Java leader's assignor receives, and
 * {@link AssigndCaller#request} turns that into assignd's explicit-member
 * request.
 *
 * @param protocol the protocol name ("range", "roundrobin", "sticky", "cooperative-sticky")
 * @param topics   the topics in the leader's metadata
 * @param members  the group's members
 */
record Group(String protocol, List<TopicSpec> topics, List<MemberSpec> members) {

    /**
     * A topic and the racks of each partition's replicas (KIP-881); racks is
     * empty when the metadata carries none.
     */
    record TopicSpec(String name, int partitions, List<List<String>> racks) {
        TopicSpec {
            racks = List.copyOf(racks);
        }
    }

    /**
     * A member as its JoinGroup subscription describes it.
     *
     * @param id         member id
     * @param instanceId group.instance.id of a static member (KIP-345), or null
     * @param topics     subscribed topics, in the member's order
     * @param owned      what it owned after its last assignment
     * @param generation generation of that assignment, -1 for none (a new member)
     * @param version    ConsumerProtocolSubscription version 0..3: v1 adds owned
     *                   partitions, v2 the generation (KIP-792), v3 the rack (KIP-881)
     * @param rack       client.rack, or null
     */
    record MemberSpec(String id, String instanceId, List<String> topics, List<TopicPartition> owned,
                      int generation, int version, String rack) {
        MemberSpec {
            topics = List.copyOf(topics);
            owned = List.copyOf(owned);
        }

        MemberSpec withTopics(List<String> t) {
            return new MemberSpec(id, instanceId, t, owned, generation, version, rack);
        }

        MemberSpec withOwned(List<TopicPartition> o, int gen) {
            return new MemberSpec(id, instanceId, topics, o, gen, version, rack);
        }

        MemberSpec withRack(String r) {
            return new MemberSpec(id, instanceId, topics, owned, generation, version, r);
        }
    }

    /** Java's assignor inputs: partitions per topic and subscriptions, in one insertion order. */
    record JavaInputs(Map<String, List<PartitionInfo>> partitionsPerTopic, Map<String, Subscription> subscriptions) {
    }

    /**
     * Builds Java's inputs. Order 0 keeps the model's order, 1 reverses the
     * member map, the topic map and each subscription's topic list, and
     * higher values shuffle them with that seed: these are hash maps and sets
     * in a real leader, so a result that changes with their order is one Java
     * itself does not pin down. Partition lists stay in partition order, as
     * the metadata gives them, and owned partitions in the member's order.
     */
    JavaInputs javaInputs(int order) {
        Set<String> subscribed = new HashSet<>();
        members.forEach(m -> subscribed.addAll(m.topics()));
        List<TopicSpec> ts = new ArrayList<>(topics);
        List<MemberSpec> ms = new ArrayList<>(members);
        Random rnd = new Random(order);
        arrange(ts, order, rnd);
        arrange(ms, order, rnd);
        Map<String, List<PartitionInfo>> ppt = new LinkedHashMap<>();
        for (TopicSpec t : ts) {
            if (!subscribed.contains(t.name())) {
                continue; // a leader only fetches metadata for subscribed topics
            }
            List<PartitionInfo> infos = new ArrayList<>();
            for (int p = 0; p < t.partitions(); p++) {
                List<String> racks = t.racks().isEmpty() ? List.of() : t.racks().get(p);
                Node[] replicas = new Node[racks.size()];
                for (int i = 0; i < racks.size(); i++) {
                    replicas[i] = new Node(Math.abs(racks.get(i).hashCode() % 1000) * 10 + i, "broker", 9092, racks.get(i));
                }
                infos.add(new PartitionInfo(t.name(), p, replicas.length > 0 ? replicas[0] : null, replicas, replicas));
            }
            ppt.put(t.name(), infos);
        }
        Map<String, Subscription> subs = new LinkedHashMap<>();
        for (MemberSpec m : ms) {
            List<String> topicsInOrder = new ArrayList<>(m.topics());
            arrange(topicsInOrder, order, rnd);
            List<TopicPartition> owned = ownedSent(m);
            Subscription s = new Subscription(topicsInOrder, userData(m), owned,
                    m.version() >= 2 ? m.generation() : -1,
                    m.version() >= 3 ? Optional.ofNullable(m.rack()) : Optional.empty());
            s.setGroupInstanceId(Optional.ofNullable(m.instanceId()));
            subs.put(m.id(), s);
        }
        return new JavaInputs(ppt, subs);
    }

    private static <T> void arrange(List<T> l, int order, Random rnd) {
        if (order == 1) {
            Collections.reverse(l);
        } else if (order > 1) {
            Collections.shuffle(l, rnd);
        }
    }

    /**
     * The owned partitions in the subscription. Only cooperative members
     * report them: an eager member has revoked everything before it rejoins,
     * and v0 has no such field.
     */
    List<TopicPartition> ownedSent(MemberSpec m) {
        return "cooperative-sticky".equals(protocol) && m.version() >= 1 ? m.owned() : List.of();
    }

    /**
     * The user data a Java member of this protocol writes, produced by Java's
     * own assignor after it learned its last assignment: the generation for
     * cooperative-sticky, StickyAssignorUserData for sticky.
     */
    ByteBuffer userData(MemberSpec m) {
        Set<String> topicSet = new LinkedHashSet<>(m.topics());
        switch (protocol) {
            case "cooperative-sticky": {
                CooperativeStickyAssignor a = new CooperativeStickyAssignor();
                if (m.generation() >= 0) {
                    a.onAssignment(new Assignment(m.owned()), new ConsumerGroupMetadata("oracle", m.generation(), m.id(), Optional.empty()));
                }
                return a.subscriptionUserData(topicSet);
            }
            case "sticky": {
                StickyAssignor a = new StickyAssignor();
                if (m.generation() >= 0) {
                    a.onAssignment(new Assignment(m.owned()), new ConsumerGroupMetadata("oracle", m.generation(), m.id(), Optional.empty()));
                }
                return a.subscriptionUserData(topicSet);
            }
            default:
                return null;
        }
    }

    /** Every partition of a topic some member subscribes to and the metadata has. */
    Set<TopicPartition> assignable() {
        Set<String> subscribed = members.stream().flatMap(m -> m.topics().stream()).collect(Collectors.toSet());
        Set<TopicPartition> out = new LinkedHashSet<>();
        for (TopicSpec t : topics) {
            if (subscribed.contains(t.name())) {
                for (int p = 0; p < t.partitions(); p++) {
                    out.add(new TopicPartition(t.name(), p));
                }
            }
        }
        return out;
    }

    /** The same group under another protocol name. */
    Group as(String protocolName) {
        return new Group(protocolName, topics, members);
    }

    /** A readable dump, one line per topic and member, for reproducers. */
    String describe() {
        StringBuilder b = new StringBuilder();
        b.append("protocol ").append(protocol).append('\n');
        for (TopicSpec t : topics) {
            b.append("  topic ").append(t.name()).append(" partitions=").append(t.partitions());
            if (!t.racks().isEmpty()) {
                b.append(" racks=").append(t.racks());
            }
            b.append('\n');
        }
        for (MemberSpec m : members) {
            b.append("  member ").append(m.id());
            if (m.instanceId() != null) {
                b.append(" instance=").append(m.instanceId());
            }
            b.append(" v").append(m.version()).append(" topics=").append(m.topics());
            if (!m.owned().isEmpty()) {
                b.append(" owned=").append(Plans.compact(m.owned()));
            }
            b.append(" generation=").append(m.generation());
            if (m.rack() != null) {
                b.append(" rack=").append(m.rack());
            }
            b.append('\n');
        }
        return b.toString();
    }
}
