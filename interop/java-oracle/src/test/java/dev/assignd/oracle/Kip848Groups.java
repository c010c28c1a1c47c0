package dev.assignd.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/**
 * Random consumer groups as the KIP-848 group coordinator sees them: topics
 * with partition counts, members with their subscribed topic names (now and
 * then one missing from the metadata) and their current assignment, which
 * never overlaps (the coordinator owns it). One seed gives one group.
 *
 * <p>Scenarios: {@code first} (no current assignment), {@code churn} (the
 * current assignment is the broker's own uniform result for the previous
 * membership: members left, joined and changed subscriptions since),
 * {@code new-topics} (the previous round knew fewer topics and fewer
 * partitions), {@code arbitrary} (any member owns any partition, or nobody
 * does, including members that no longer subscribe to its topic).
 */
final class Kip848Groups {
    static final String[] SCENARIOS = {"first", "churn", "new-topics", "arbitrary"};

    record Topic(String name, int partitions) {
    }

    /** current: topic name → owned partitions, any topic (even missing or unsubscribed). */
    record Member(String id, String instanceId, List<String> topics, Map<String, SortedSet<Integer>> current) {
        Member {
            topics = List.copyOf(topics);
            current = Collections.unmodifiableMap(new TreeMap<>(current));
        }

        Member withCurrent(Map<String, SortedSet<Integer>> c) {
            return new Member(id, instanceId, topics, c);
        }
    }

    /** A group: topics sorted by name, members sorted by id (assignd's orders). */
    record Group(String scenario, List<Topic> topics, List<Member> members) {
        Group {
            topics = new ArrayList<>(topics);
            topics.sort((a, b) -> a.name().compareTo(b.name()));
            topics = List.copyOf(topics);
            members = new ArrayList<>(members);
            members.sort((a, b) -> a.id().compareTo(b.id()));
            members = List.copyOf(members);
        }

        /** The broker's subscription type: every member subscribes to the same names. */
        boolean homogeneous() {
            Set<String> first = null;
            for (Member m : members) {
                Set<String> s = new HashSet<>(m.topics());
                if (first == null) {
                    first = s;
                } else if (!first.equals(s)) {
                    return false;
                }
            }
            return true;
        }

        Map<String, Integer> partitionCounts() {
            Map<String, Integer> out = new LinkedHashMap<>();
            topics.forEach(t -> out.put(t.name(), t.partitions()));
            return out;
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("scenario " + scenario + (homogeneous() ? ", homogeneous" : ", heterogeneous") + "\n");
            topics.forEach(t -> b.append("  topic ").append(t.name()).append(" partitions=").append(t.partitions()).append('\n'));
            members.forEach(m -> b.append("  member ").append(m.id())
                    .append(m.instanceId() == null ? "" : " instance=" + m.instanceId())
                    .append(" topics=").append(m.topics())
                    .append(m.current().isEmpty() ? "" : " current=" + m.current()).append('\n'));
            return b.toString();
        }
    }

    private Kip848Groups() {
    }

    static Group generate(long seed) {
        Random r = new Random(seed * 7919L + 17);
        String scenario = SCENARIOS[(int) (seed % SCENARIOS.length)];
        boolean homogeneous = r.nextBoolean();
        // One group in twenty is large, for the heterogeneous builder's
        // balancing passes over many overlapping topics.
        boolean large = r.nextInt(20) == 0;
        int nt = 1 + r.nextInt(large ? 40 : r.nextInt(8) == 0 ? 12 : 5);
        int nm = 1 + r.nextInt(large ? 150 : r.nextInt(8) == 0 ? 30 : 7);
        List<Topic> topics = new ArrayList<>();
        Set<String> names = new HashSet<>();
        while (topics.size() < nt) {
            String name = "t" + word(r, 3);
            if (names.add(name)) {
                topics.add(new Topic(name, 1 + r.nextInt(large ? 100 : r.nextInt(6) == 0 ? 64 : 16)));
            }
        }
        boolean statics = r.nextInt(3) == 0;
        // One member in ten groups names a topic missing from the metadata;
        // the broker counts names, so only some members naming it makes the
        // group heterogeneous.
        String missing = r.nextInt(10) == 0 ? "gone" + word(r, 2) : null;
        List<String> common = subset(r, topics, 0.5);
        List<Member> members = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        while (members.size() < nm) {
            String id = "m" + word(r, 5);
            if (!ids.add(id)) {
                continue;
            }
            List<String> subs = new ArrayList<>(homogeneous ? common : subset(r, topics, r.nextBoolean() ? 0.3 : 0.7));
            if (missing != null && (homogeneous || r.nextBoolean())) {
                subs.add(missing);
            }
            String inst = statics && r.nextBoolean() ? "i" + word(r, 4) : null;
            members.add(new Member(id, inst, subs, Map.of()));
        }
        Group g = new Group(scenario, topics, members);
        return switch (scenario) {
            case "churn" -> churn(r, g);
            case "new-topics" -> newTopics(r, g);
            case "arbitrary" -> arbitrary(r, g);
            default -> g;
        };
    }

    /** The previous membership: some members had other subscriptions, some were not there, others left since. */
    private static Group churn(Random r, Group g) {
        List<Member> prev = new ArrayList<>();
        for (Member m : g.members()) {
            if (r.nextInt(5) == 0) {
                continue; // joined since
            }
            List<String> subs = r.nextInt(5) == 0 ? subset(r, g.topics(), 0.5) : m.topics();
            prev.add(new Member(m.id(), m.instanceId(), subs, Map.of()));
        }
        for (int i = r.nextInt(3); i > 0; i--) {
            prev.add(new Member("left" + word(r, 4), null, subset(r, g.topics(), 0.6), Map.of()));
        }
        return withPreviousRound(g, new Group("prev", g.topics(), prev));
    }

    /** The previous round knew fewer topics, and fewer partitions of some. */
    private static Group newTopics(Random r, Group g) {
        List<Topic> known = new ArrayList<>();
        for (Topic t : g.topics()) {
            if (known.isEmpty() || r.nextInt(3) != 0) {
                int p = r.nextInt(3) == 0 ? 1 + r.nextInt(t.partitions()) : t.partitions();
                known.add(new Topic(t.name(), p));
            }
        }
        return withPreviousRound(g, new Group("prev", known, g.members()));
    }

    private static Group withPreviousRound(Group g, Group prev) {
        Map<String, Map<String, SortedSet<Integer>>> plan = BrokerAssignors.run(new UniformAssignor(), prev, null);
        List<Member> out = new ArrayList<>();
        for (Member m : g.members()) {
            out.add(m.withCurrent(plan.getOrDefault(m.id(), Map.of())));
        }
        return new Group(g.scenario(), g.topics(), out);
    }

    /** Every partition owned by a random member, or by nobody. */
    private static Group arbitrary(Random r, Group g) {
        List<Map<String, SortedSet<Integer>>> cur = new ArrayList<>();
        g.members().forEach(m -> cur.add(new TreeMap<>()));
        for (Topic t : g.topics()) {
            for (int p = 0; p < t.partitions(); p++) {
                if (r.nextInt(10) < 7) {
                    cur.get(r.nextInt(cur.size())).computeIfAbsent(t.name(), k -> new TreeSet<>()).add(p);
                }
            }
        }
        List<Member> out = new ArrayList<>();
        for (int i = 0; i < g.members().size(); i++) {
            out.add(g.members().get(i).withCurrent(cur.get(i)));
        }
        return new Group(g.scenario(), g.topics(), out);
    }

    private static List<String> subset(Random r, List<Topic> topics, double p) {
        List<String> out = new ArrayList<>();
        for (Topic t : topics) {
            if (r.nextDouble() < p) {
                out.add(t.name());
            }
        }
        if (out.isEmpty() && r.nextInt(6) != 0) {
            out.add(topics.get(r.nextInt(topics.size())).name());
        }
        return out;
    }

    private static String word(Random r, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + r.nextInt(26)));
        }
        return b.toString();
    }
}
