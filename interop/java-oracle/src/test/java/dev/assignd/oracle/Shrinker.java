package dev.assignd.oracle;

import dev.assignd.oracle.Group.MemberSpec;
import dev.assignd.oracle.Group.TopicSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.TopicPartition;

/**
 * Shrinks a group while a property still holds (a mismatch, an invalid
 * plan): it removes members, topics and partitions, and drops racks, owned
 * partitions and static ids, one at a time, until no single step keeps the
 * property. The result is the reproducer the report prints.
 */
final class Shrinker {
    private static final int MAX_TRIES = 400;

    private Shrinker() {
    }

    static Group shrink(Group g, Predicate<Group> holds) {
        int tries = 0;
        boolean progress = true;
        while (progress && tries < MAX_TRIES) {
            progress = false;
            for (Group c : candidates(g)) {
                if (++tries > MAX_TRIES) {
                    break;
                }
                boolean ok;
                try {
                    ok = holds.test(c);
                } catch (RuntimeException e) {
                    ok = false; // a candidate either side rejects is no reproducer
                }
                if (ok) {
                    g = c;
                    progress = true;
                    break;
                }
            }
        }
        return g;
    }

    /** Every group one step smaller than g, biggest steps first. */
    private static List<Group> candidates(Group g) {
        List<Group> out = new ArrayList<>();
        int n = g.members().size();
        if (n > 8) {
            // Halves first: a medium group shrinks in tens of steps, not hundreds.
            out.add(new Group(g.protocol(), g.topics(), new ArrayList<>(g.members().subList(0, n / 2))));
            out.add(new Group(g.protocol(), g.topics(), new ArrayList<>(g.members().subList(n / 2, n))));
        }
        for (int i = 0; i < g.members().size(); i++) {
            if (g.members().size() > 1) {
                List<MemberSpec> ms = new ArrayList<>(g.members());
                ms.remove(i);
                out.add(new Group(g.protocol(), g.topics(), ms));
            }
        }
        for (TopicSpec t : g.topics()) {
            if (g.topics().size() > 1) {
                out.add(removeTopic(g, t.name()));
            }
        }
        for (int i = 0; i < g.topics().size(); i++) {
            TopicSpec t = g.topics().get(i);
            if (t.partitions() > 1) {
                out.add(withTopic(g, i, new TopicSpec(t.name(), t.partitions() - 1,
                        t.racks().isEmpty() ? List.of() : t.racks().subList(0, t.partitions() - 1))));
            }
            if (!t.racks().isEmpty()) {
                out.add(withTopic(g, i, new TopicSpec(t.name(), t.partitions(), List.of())));
            }
        }
        for (int i = 0; i < g.members().size(); i++) {
            MemberSpec m = g.members().get(i);
            if (m.rack() != null) {
                out.add(withMember(g, i, x -> x.withRack(null)));
            }
            if (!m.owned().isEmpty()) {
                out.add(withMember(g, i, x -> x.withOwned(List.of(), x.generation())));
                for (int k = 0; k < m.owned().size() && m.owned().size() > 1; k++) {
                    List<TopicPartition> o = new ArrayList<>(m.owned());
                    o.remove(k);
                    out.add(withMember(g, i, x -> x.withOwned(o, x.generation())));
                }
            }
            if (m.instanceId() != null) {
                out.add(withMember(g, i, x -> new MemberSpec(x.id(), null, x.topics(), x.owned(), x.generation(), x.version(), x.rack())));
            }
            if (m.version() != 3) {
                out.add(withMember(g, i, x -> new MemberSpec(x.id(), x.instanceId(), x.topics(), x.owned(), x.generation(), 3, x.rack())));
            }
        }
        return out;
    }

    private static Group removeTopic(Group g, String name) {
        List<TopicSpec> ts = new ArrayList<>(g.topics());
        ts.removeIf(t -> t.name().equals(name));
        List<MemberSpec> ms = new ArrayList<>();
        for (MemberSpec m : g.members()) {
            List<String> topics = new ArrayList<>(m.topics());
            topics.remove(name);
            List<TopicPartition> owned = new ArrayList<>(m.owned());
            owned.removeIf(tp -> tp.topic().equals(name));
            ms.add(m.withTopics(topics).withOwned(owned, m.generation()));
        }
        return new Group(g.protocol(), ts, ms);
    }

    private static Group withTopic(Group g, int i, TopicSpec t) {
        List<TopicSpec> ts = new ArrayList<>(g.topics());
        ts.set(i, t);
        List<MemberSpec> ms = new ArrayList<>();
        for (MemberSpec m : g.members()) {
            List<TopicPartition> owned = new ArrayList<>(m.owned());
            owned.removeIf(tp -> tp.topic().equals(t.name()) && tp.partition() >= t.partitions());
            ms.add(m.withOwned(owned, m.generation()));
        }
        return new Group(g.protocol(), ts, ms);
    }

    private static Group withMember(Group g, int i, UnaryOperator<MemberSpec> f) {
        List<MemberSpec> ms = new ArrayList<>(g.members());
        ms.set(i, f.apply(ms.get(i)));
        return new Group(g.protocol(), g.topics(), ms);
    }
}
