package dev.assignd.oracle;

import dev.assignd.oracle.Group.MemberSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * What a plan must satisfy, and how good it is: the invariant checker every
 * comparison runs on both sides, and the quality figures the report puts side
 * by side.
 */
final class Plans {
    static final Comparator<TopicPartition> TP_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private Plans() {
    }

    /**
     * The members that may still hold each partition: the claimants with the
     * highest generation among its claims (Java's AbstractStickyAssignor and
     * KIP-792). Only what the members report counts: owned partitions for
     * cooperative-sticky, the user data for sticky.
     */
    static Map<TopicPartition, Set<String>> holders(Group g) {
        Map<TopicPartition, Integer> best = new HashMap<>();
        Map<TopicPartition, Set<String>> at = new HashMap<>();
        for (MemberSpec m : g.members()) {
            List<TopicPartition> claims = switch (g.protocol()) {
                case "cooperative-sticky" -> g.ownedSent(m);
                case "sticky" -> m.generation() >= 0 ? m.owned() : List.of();
                default -> List.of();
            };
            for (TopicPartition tp : new HashSet<>(claims)) {
                int gen = m.generation();
                Integer b = best.get(tp);
                if (b == null || gen > b) {
                    best.put(tp, gen);
                    at.put(tp, new TreeSet<>(List.of(m.id())));
                } else if (gen == b) {
                    at.get(tp).add(m.id());
                }
            }
        }
        return at;
    }

    /** The current owner of each partition that has exactly one holder. */
    static Map<TopicPartition, String> validOwners(Group g) {
        Map<TopicPartition, String> out = new HashMap<>();
        holders(g).forEach((tp, ids) -> {
            if (ids.size() == 1) {
                out.put(tp, ids.iterator().next());
            }
        });
        return out;
    }

    /**
     * The invariant violations of a plan, empty when it is valid: every
     * member of the group has an entry; every partition of a subscribed topic
     * goes to exactly one member that subscribes to its topic, except, under
     * cooperative-sticky, the partitions withheld because a member that may
     * hold them must revoke them first; and no partition goes to a member
     * while another member may still hold it (KIP-429).
     */
    static List<String> violations(Group g, Map<String, List<TopicPartition>> plan) {
        List<String> out = new ArrayList<>();
        Map<String, MemberSpec> byId = new HashMap<>();
        g.members().forEach(m -> byId.put(m.id(), m));
        if (!plan.keySet().equals(byId.keySet())) {
            out.add("members in the plan " + new TreeSet<>(plan.keySet()) + " are not the group's " + new TreeSet<>(byId.keySet()));
        }
        Set<TopicPartition> assignable = g.assignable();
        Map<TopicPartition, Set<String>> holders = holders(g);
        boolean cooperative = "cooperative-sticky".equals(g.protocol());
        Map<TopicPartition, String> assignedTo = new HashMap<>();
        for (Map.Entry<String, List<TopicPartition>> e : new TreeMap<>(plan).entrySet()) {
            MemberSpec m = byId.get(e.getKey());
            for (TopicPartition tp : e.getValue()) {
                String prev = assignedTo.put(tp, e.getKey());
                if (prev != null) {
                    out.add(tp + " assigned twice: " + prev + " and " + e.getKey());
                }
                if (!assignable.contains(tp)) {
                    out.add(tp + " assigned to " + e.getKey() + " does not exist or nobody subscribes to its topic");
                }
                if (m != null && !m.topics().contains(tp.topic())) {
                    out.add(tp + " assigned to " + e.getKey() + ", which does not subscribe to " + tp.topic());
                }
                Set<String> others = new TreeSet<>(holders.getOrDefault(tp, Set.of()));
                others.remove(e.getKey());
                if (cooperative && !others.isEmpty()) {
                    out.add(tp + " assigned to " + e.getKey() + " while " + others + " may still own it (KIP-429)");
                }
            }
        }
        for (TopicPartition tp : assignable) {
            if (assignedTo.containsKey(tp)) {
                continue;
            }
            if (!cooperative) {
                out.add(tp + " is not assigned");
            } else if (!holders.containsKey(tp)) {
                out.add(tp + " is not assigned and nobody owns it (so nothing to wait for)");
            }
        }
        return out;
    }

    /** Quality figures of a plan. */
    record Quality(int imbalance, boolean balanced, int topicSpread, int moved) {
        @Override
        public String toString() {
            return "imbalance=" + imbalance + (balanced ? " balanced" : " UNBALANCED") + " topic-spread=" + topicSpread + " moved=" + moved;
        }
    }

    /**
     * imbalance: most minus fewest partitions over the members; balanced:
     * Java's criterion, no member could take a partition of a topic it
     * subscribes to from a member with at least two more; topicSpread: the sum
     * over topics of most minus fewest partitions of that topic among its
     * subscribers; moved: partitions whose current owner is still a member
     * but ends up without them.
     */
    static Quality quality(Group g, Map<String, List<TopicPartition>> plan, Map<TopicPartition, String> initialOwners) {
        int max = 0;
        int min = Integer.MAX_VALUE;
        for (List<TopicPartition> l : plan.values()) {
            max = Math.max(max, l.size());
            min = Math.min(min, l.size());
        }
        if (plan.isEmpty()) {
            min = 0;
        }
        Map<String, MemberSpec> byId = new HashMap<>();
        g.members().forEach(m -> byId.put(m.id(), m));
        boolean balanced = true;
        outer:
        for (Map.Entry<String, List<TopicPartition>> a : plan.entrySet()) {
            MemberSpec ma = byId.get(a.getKey());
            for (Map.Entry<String, List<TopicPartition>> b : plan.entrySet()) {
                if (b.getValue().size() < a.getValue().size() + 2) {
                    continue;
                }
                for (TopicPartition tp : b.getValue()) {
                    if (ma != null && ma.topics().contains(tp.topic())) {
                        balanced = false;
                        break outer;
                    }
                }
            }
        }
        int spread = 0;
        Set<String> topics = new TreeSet<>();
        g.assignable().forEach(tp -> topics.add(tp.topic()));
        for (String t : topics) {
            int tmax = 0;
            int tmin = Integer.MAX_VALUE;
            for (MemberSpec m : g.members()) {
                if (!m.topics().contains(t)) {
                    continue;
                }
                int n = 0;
                for (TopicPartition tp : plan.getOrDefault(m.id(), List.of())) {
                    if (tp.topic().equals(t)) {
                        n++;
                    }
                }
                tmax = Math.max(tmax, n);
                tmin = Math.min(tmin, n);
            }
            if (tmin != Integer.MAX_VALUE) {
                spread += tmax - tmin;
            }
        }
        Map<TopicPartition, String> finalOwner = new HashMap<>();
        plan.forEach((m, l) -> l.forEach(tp -> finalOwner.put(tp, m)));
        int moved = 0;
        for (Map.Entry<TopicPartition, String> e : initialOwners.entrySet()) {
            if (byId.containsKey(e.getValue()) && !e.getValue().equals(finalOwner.get(e.getKey()))) {
                moved++;
            }
        }
        return new Quality(max - min, balanced, spread, moved);
    }

    /** "topic[0-2,5] other[1]" for a list of partitions. */
    static String compact(Collection<TopicPartition> tps) {
        Map<String, TreeSet<Integer>> by = new TreeMap<>();
        tps.forEach(tp -> by.computeIfAbsent(tp.topic(), k -> new TreeSet<>()).add(tp.partition()));
        StringBuilder b = new StringBuilder();
        by.forEach((t, ps) -> {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(t).append('[');
            Integer start = null;
            Integer prev = null;
            List<String> runs = new ArrayList<>();
            for (int p : ps) {
                if (prev != null && p == prev + 1) {
                    prev = p;
                    continue;
                }
                if (start != null) {
                    runs.add(start.equals(prev) ? "" + start : start + "-" + prev);
                }
                start = p;
                prev = p;
            }
            if (start != null) {
                runs.add(start.equals(prev) ? "" + start : start + "-" + prev);
            }
            b.append(String.join(",", runs)).append(']');
        });
        return b.length() == 0 ? "-" : b.toString();
    }

    /** A plan as "member: partitions" lines, members sorted. */
    static String show(Map<String, List<TopicPartition>> plan) {
        StringBuilder b = new StringBuilder();
        new TreeMap<>(plan).forEach((m, l) -> b.append("    ").append(m).append(": ").append(compact(l)).append('\n'));
        return b.toString();
    }
}
