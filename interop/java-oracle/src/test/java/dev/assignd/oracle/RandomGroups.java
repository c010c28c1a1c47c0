package dev.assignd.oracle;

import dev.assignd.oracle.Group.MemberSpec;
import dev.assignd.oracle.Group.TopicSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Random groups from a seed: sizes, equal and unequal subscriptions, a
 * previous round's ownership with members that left and joined, stale
 * generations, subscription versions 0 to 3, static members and racks
 * (KIP-881). The same seed always gives the same group.
 */
final class RandomGroups {
    private static final String[] RACKS = {"rack-a", "rack-b", "rack-c"};

    private RandomGroups() {
    }

    static Group generate(String protocol, long seed) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + protocol.hashCode());
        boolean large = r.nextInt(10) == 0;
        int nTopics = 1 + r.nextInt(large ? 12 : 5);
        int nMembers = 1 + r.nextInt(large ? 24 : 7);
        int maxPartitions = large ? 40 : 12;
        boolean racks = r.nextInt(10) < 4;

        List<TopicSpec> topics = new ArrayList<>();
        for (int i = 0; i < nTopics; i++) {
            // Names whose sorted order is not their creation order.
            String name = "t" + (char) ('a' + r.nextInt(26)) + i;
            int n = 1 + r.nextInt(maxPartitions);
            List<List<String>> rs = new ArrayList<>();
            if (racks && r.nextInt(5) > 0) {
                for (int p = 0; p < n; p++) {
                    List<String> replicas = new ArrayList<>();
                    int rf = 1 + r.nextInt(2);
                    for (int k = 0; k < rf; k++) {
                        String rack = RACKS[r.nextInt(RACKS.length)];
                        if (!replicas.contains(rack)) {
                            replicas.add(rack);
                        }
                    }
                    rs.add(replicas);
                }
            }
            topics.add(new TopicSpec(name, n, rs));
        }

        boolean equalSubscriptions = r.nextBoolean();
        List<String> all = topics.stream().map(TopicSpec::name).toList();
        List<String> common = equalSubscriptions ? randomSubset(all, r, true) : null;

        // The previous round: members that stay, members that left.
        int generation = 1 + r.nextInt(20);
        int nLeavers = r.nextInt(3);
        int nJoiners = r.nextInt(3);
        List<MemberSpec> previous = new ArrayList<>();
        for (int i = 0; i < nMembers + nLeavers; i++) {
            String id = "consumer-" + Integer.toString(r.nextInt(1 << 20), 36) + "-" + i;
            String instance = r.nextInt(5) == 0 ? "instance-" + (char) ('a' + r.nextInt(26)) + i : null;
            List<String> subs = equalSubscriptions ? common : randomSubset(all, r, true);
            if (r.nextInt(20) == 0) {
                subs = new ArrayList<>(subs);
                subs.add("missing-topic"); // not in the metadata
            }
            int version = r.nextInt(4) == 0 ? r.nextInt(3) : 3;
            String rack = racks && r.nextInt(6) > 0 ? RACKS[r.nextInt(RACKS.length)] : null;
            previous.add(new MemberSpec(id, instance, subs, List.of(), generation, version, rack));
        }
        Map<String, List<TopicPartition>> plan = previousPlan(topics, previous, r);

        List<MemberSpec> members = new ArrayList<>();
        for (int i = 0; i < previous.size(); i++) {
            MemberSpec m = previous.get(i);
            if (i >= nMembers) {
                continue; // left the group
            }
            List<TopicPartition> owned = plan.getOrDefault(m.id(), List.of());
            int gen = generation;
            if (r.nextInt(8) == 0) {
                // A stale member (KIP-792): it missed a generation, and claims
                // what it owned then, partly owned by others now.
                gen = generation - 1 - r.nextInt(2);
                Set<TopicPartition> stale = new LinkedHashSet<>(owned);
                for (TopicPartition tp : randomPartitions(topics, m.topics(), r)) {
                    stale.add(tp);
                }
                owned = new ArrayList<>(stale);
            }
            MemberSpec cur = m.withOwned(owned, gen);
            if (!equalSubscriptions && r.nextInt(6) == 0) {
                cur = cur.withTopics(randomSubset(all, r, true)); // changed its subscription
            }
            members.add(cur);
        }
        for (int j = 0; j < nJoiners; j++) {
            String id = "consumer-new-" + Integer.toString(r.nextInt(1 << 20), 36) + "-" + j;
            List<String> subs = equalSubscriptions ? common : randomSubset(all, r, true);
            String rack = racks && r.nextInt(6) > 0 ? RACKS[r.nextInt(RACKS.length)] : null;
            int version = r.nextInt(4) == 0 ? r.nextInt(3) : 3;
            members.add(new MemberSpec(id, null, subs, List.of(), -1, version, rack));
        }
        if (r.nextInt(8) == 0) {
            // A first assignment: nobody owns anything yet.
            members.replaceAll(m -> m.withOwned(List.of(), -1));
        }
        return new Group(protocol, topics, members);
    }

    /** A valid plan of the previous generation: balanced-ish or arbitrary. */
    private static Map<String, List<TopicPartition>> previousPlan(List<TopicSpec> topics, List<MemberSpec> members, Random r) {
        Map<String, List<TopicPartition>> plan = new HashMap<>();
        boolean roundRobin = r.nextBoolean();
        int next = 0;
        for (TopicSpec t : topics) {
            List<MemberSpec> subscribers = members.stream().filter(m -> m.topics().contains(t.name())).toList();
            if (subscribers.isEmpty()) {
                continue;
            }
            for (int p = 0; p < t.partitions(); p++) {
                if (r.nextInt(12) == 0) {
                    continue; // a new partition nobody owns yet
                }
                MemberSpec owner = roundRobin ? subscribers.get(next++ % subscribers.size()) : subscribers.get(r.nextInt(subscribers.size()));
                plan.computeIfAbsent(owner.id(), k -> new ArrayList<>()).add(new TopicPartition(t.name(), p));
            }
        }
        return plan;
    }

    private static List<TopicPartition> randomPartitions(List<TopicSpec> topics, List<String> subscribed, Random r) {
        List<TopicPartition> out = new ArrayList<>();
        for (TopicSpec t : topics) {
            if (subscribed.contains(t.name())) {
                for (int p = 0; p < t.partitions(); p++) {
                    if (r.nextInt(4) == 0) {
                        out.add(new TopicPartition(t.name(), p));
                    }
                }
            }
        }
        return out;
    }

    private static List<String> randomSubset(List<String> all, Random r, boolean nonEmpty) {
        List<String> out = new ArrayList<>();
        for (String s : all) {
            if (r.nextBoolean()) {
                out.add(s);
            }
        }
        if (out.isEmpty() && nonEmpty) {
            out.add(all.get(r.nextInt(all.size())));
        }
        return out;
    }
}
