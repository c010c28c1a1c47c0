package dev.assignd.oracle;

import dev.assignd.oracle.Group.MemberSpec;
import dev.assignd.oracle.Group.TopicSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Multi-round chains of group events from a seed: the membership and the
 * metadata evolve the same way for both sides (what they own does not: each
 * side is fed its own answers, see {@link ChainRunner}). A chain is a shape
 * (small: 3–12 members; medium: 100–500 members, unequal subscriptions;
 * large, by hand only: 1,000 members) and a list of rounds, each one to
 * three events: joins (one to three members at once), leaves, a whole rack
 * leaving, subscription changes, partitions added, a new topic, a static
 * member restarting under a new member id, a member reporting a stale
 * generation (KIP-792). The same seed always gives the same chain.
 */
final class Chains {
    static final String[] RACKS = {"rack-a", "rack-b", "rack-c"};

    private Chains() {
    }

    /** What happens before one round; applied to the membership model. */
    sealed interface Event permits Join, Leave, Resubscribe, Grow, NewTopic, Restart, Stale {
    }

    /** Members join, with their subscriptions and racks. */
    record Join(List<MemberSpec> members) implements Event {
    }

    /** Members leave (a whole rack when rack is set). */
    record Leave(List<String> ids, String rack) implements Event {
    }

    /** A member changes its subscription. */
    record Resubscribe(String id, List<String> topics) implements Event {
    }

    /** A topic gains partitions (racks for them when the topic has racks). */
    record Grow(String topic, int partitions, List<List<String>> racks) implements Event {
    }

    /** A new topic, and the members that subscribe to it. */
    record NewTopic(TopicSpec topic, List<String> subscribers) implements Event {
    }

    /** A static member restarts: same instance id, new member id, what it owned kept. */
    record Restart(String oldId, String newId) implements Event {
    }

    /** A member missed the last generation: it reports what it owned the round before, at that generation. */
    record Stale(String id) implements Event {
    }

    /** One chain: its shape, the starting group (nothing owned) and its rounds of events. */
    record Chain(String protocol, long seed, String shape, List<TopicSpec> topics, List<MemberSpec> members,
                 List<List<Event>> rounds) {
        String label() {
            return protocol + " chain " + seed + " (" + shape + ")";
        }
    }

    /** The shape a seed draws: one chain in ten is medium; large only when asked. */
    static String shapeOf(long seed, boolean large) {
        Random r = new Random(seed * 0x2545F4914F6CDD1DL + 17);
        if (large && r.nextInt(10) == 0) {
            return "large";
        }
        return r.nextInt(10) == 0 ? "medium" : "small";
    }

    static Chain generate(String protocol, long seed, boolean large) {
        String shape = shapeOf(seed, large);
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + protocol.hashCode() + 7);
        int nMembers;
        int nTopics;
        int maxPartitions;
        int nRounds;
        boolean equal;
        switch (shape) {
            case "medium" -> {
                nMembers = 100 + r.nextInt(401);
                nTopics = 5 + r.nextInt(26);
                maxPartitions = Math.max(4, 4 * nMembers / nTopics);
                nRounds = 2 + r.nextInt(2);
                equal = false;
            }
            case "large" -> {
                nMembers = 1000;
                nTopics = 50;
                maxPartitions = 2000;
                nRounds = 3;
                equal = r.nextBoolean();
            }
            default -> {
                nMembers = 3 + r.nextInt(10);
                nTopics = 1 + r.nextInt(5);
                maxPartitions = 4 + r.nextInt(30);
                nRounds = 4 + r.nextInt(5);
                equal = r.nextBoolean();
            }
        }
        boolean racks = r.nextInt(10) < 4;
        Model m = new Model(protocol, r, racks, equal);
        for (int i = 0; i < nTopics; i++) {
            m.topics.add(m.newTopic(1 + r.nextInt(maxPartitions)));
        }
        m.common = m.randomSubset();
        for (int i = 0; i < nMembers; i++) {
            m.members.add(m.newMember(i < nMembers / 10 && r.nextInt(3) == 0));
        }
        List<TopicSpec> topics0 = List.copyOf(m.topics);
        List<MemberSpec> members0 = List.copyOf(m.members);
        List<List<Event>> rounds = new ArrayList<>();
        for (int k = 0; k < nRounds; k++) {
            List<Event> events = new ArrayList<>();
            int n = 1 + r.nextInt(3);
            for (int e = 0; e < n; e++) {
                Event ev = m.randomEvent(shape);
                if (ev != null) {
                    m.apply(ev);
                    events.add(ev);
                }
            }
            rounds.add(events);
        }
        return new Chain(protocol, seed, shape, topics0, members0, rounds);
    }

    /** The membership and metadata as events change them; owned partitions live with each side. */
    static final class Model {
        final String protocol;
        final Random r;
        final boolean racks;
        final boolean equal;
        final List<TopicSpec> topics = new ArrayList<>();
        final List<MemberSpec> members = new ArrayList<>();
        List<String> common;
        int nextId;

        Model(String protocol, Random r, boolean racks, boolean equal) {
            this.protocol = protocol;
            this.r = r;
            this.racks = racks;
            this.equal = equal;
        }

        /** The model from a chain's start, for replaying its events. */
        static Model start(Chain c) {
            Model m = new Model(c.protocol(), null, false, false);
            m.topics.addAll(c.topics());
            m.members.addAll(c.members());
            return m;
        }

        TopicSpec newTopic(int partitions) {
            String name = "t" + (char) ('a' + r.nextInt(26)) + topics.size();
            return new TopicSpec(name, partitions, racks && r.nextInt(5) > 0 ? rackList(partitions) : List.of());
        }

        List<List<String>> rackList(int n) {
            List<List<String>> rs = new ArrayList<>();
            for (int p = 0; p < n; p++) {
                Set<String> replicas = new LinkedHashSet<>();
                int rf = 1 + r.nextInt(2);
                for (int k = 0; k < rf; k++) {
                    replicas.add(RACKS[r.nextInt(RACKS.length)]);
                }
                rs.add(List.copyOf(replicas));
            }
            return rs;
        }

        MemberSpec newMember(boolean isStatic) {
            int i = nextId++;
            String id = "consumer-" + Integer.toString(r.nextInt(1 << 20), 36) + "-" + i;
            String instance = isStatic ? "instance-" + i : null;
            List<String> subs = equal ? common : randomSubset();
            String rack = racks && r.nextInt(6) > 0 ? RACKS[r.nextInt(RACKS.length)] : null;
            int version = r.nextInt(10) == 0 ? 1 + r.nextInt(2) : 3;
            return new MemberSpec(id, instance, subs, List.of(), -1, version, rack);
        }

        List<String> randomSubset() {
            List<String> out = new ArrayList<>();
            for (TopicSpec t : topics) {
                if (r.nextBoolean()) {
                    out.add(t.name());
                }
            }
            if (out.isEmpty()) {
                out.add(topics.get(r.nextInt(topics.size())).name());
            }
            return out;
        }

        Event randomEvent(String shape) {
            int scale = "small".equals(shape) ? 1 : Math.max(1, members.size() / 50);
            int kind = r.nextInt(100);
            if (kind < 35) {
                List<MemberSpec> js = new ArrayList<>();
                int n = 1 + r.nextInt(3) * (r.nextInt(3) == 0 ? scale : 1);
                for (int i = 0; i < n; i++) {
                    js.add(newMember(r.nextInt(6) == 0));
                }
                return new Join(js);
            }
            if (kind < 60 && members.size() > 1) {
                if (racks && r.nextInt(4) == 0) {
                    String rack = RACKS[r.nextInt(RACKS.length)];
                    List<String> ids = members.stream().filter(m -> rack.equals(m.rack())).map(MemberSpec::id).toList();
                    if (!ids.isEmpty() && ids.size() < members.size()) {
                        return new Leave(ids, rack);
                    }
                }
                List<String> ids = new ArrayList<>();
                int n = Math.min(members.size() - 1, 1 + r.nextInt(2));
                for (int i = 0; i < n; i++) {
                    String id = members.get(r.nextInt(members.size())).id();
                    if (!ids.contains(id)) {
                        ids.add(id);
                    }
                }
                return new Leave(ids, null);
            }
            if (kind < 70 && !equal) {
                MemberSpec m = members.get(r.nextInt(members.size()));
                return new Resubscribe(m.id(), randomSubset());
            }
            if (kind < 78) {
                TopicSpec t = topics.get(r.nextInt(topics.size()));
                int add = 1 + r.nextInt(Math.max(1, t.partitions() / 2));
                return new Grow(t.name(), add, t.racks().isEmpty() ? List.of() : rackList(add));
            }
            if (kind < 84 && topics.size() < 60) {
                TopicSpec t = newTopic(1 + r.nextInt(Math.max(4, 2 * members.size())));
                List<String> subs = new ArrayList<>();
                for (MemberSpec m : members) {
                    if (equal || r.nextBoolean()) {
                        subs.add(m.id());
                    }
                }
                if (subs.isEmpty()) {
                    subs.add(members.get(0).id());
                }
                return new NewTopic(t, subs);
            }
            if (kind < 92) {
                List<MemberSpec> statics = members.stream().filter(m -> m.instanceId() != null).toList();
                if (!statics.isEmpty()) {
                    MemberSpec m = statics.get(r.nextInt(statics.size()));
                    return new Restart(m.id(), "consumer-" + Integer.toString(r.nextInt(1 << 20), 36) + "-" + nextId++);
                }
            }
            if (!"sticky".equals(protocol) || r.nextBoolean()) {
                return new Stale(members.get(r.nextInt(members.size())).id());
            }
            return null;
        }

        void apply(Event e) {
            if (e instanceof Join j) {
                members.addAll(j.members());
            } else if (e instanceof Leave l) {
                members.removeIf(m -> l.ids().contains(m.id()));
            } else if (e instanceof Resubscribe s) {
                members.replaceAll(m -> m.id().equals(s.id()) ? m.withTopics(s.topics()) : m);
            } else if (e instanceof Grow g) {
                topics.replaceAll(t -> {
                    if (!t.name().equals(g.topic())) {
                        return t;
                    }
                    List<List<String>> rs = new ArrayList<>(t.racks());
                    rs.addAll(g.racks());
                    return new TopicSpec(t.name(), t.partitions() + g.partitions(), t.racks().isEmpty() ? List.of() : rs);
                });
            } else if (e instanceof NewTopic n) {
                topics.add(n.topic());
                members.replaceAll(m -> {
                    if (!n.subscribers().contains(m.id())) {
                        return m;
                    }
                    List<String> ts = new ArrayList<>(m.topics());
                    ts.add(n.topic().name());
                    return m.withTopics(ts);
                });
                if (equal) {
                    List<String> c = new ArrayList<>(common);
                    c.add(n.topic().name());
                    common = c;
                }
            } else if (e instanceof Restart s) {
                members.replaceAll(m -> m.id().equals(s.oldId())
                        ? new MemberSpec(s.newId(), m.instanceId(), m.topics(), m.owned(), m.generation(), m.version(), m.rack()) : m);
            }
            // Stale: each side applies it to what it owns (ChainRunner).
        }
    }
}
