package dev.assignd.oracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Random Kafka Streams groups (KIP-1071) and the chains of rebalances they
 * go through, for {@link StreamsOracleTest}: processes (KafkaStreams
 * instances) of 1 to 4 stream threads, each thread a member; racks and
 * client tags; subtopologies stateful or not, of 1 to 16 tasks; 0 to 2
 * standby replicas. A chain is a group and its next rounds, each one change
 * a real application sees: a process joins or leaves, a thread starts or
 * stops, a process restarts (its threads rejoin under new member ids with
 * no current tasks, its process id kept), the topology grows (more input
 * partitions, or a new subtopology), or nothing changes. Everything comes
 * from the seed, so a failure is reproduced by its seed.
 */
final class StreamsGroups {
    private StreamsGroups() {
    }

    /** One subtopology: its id, its task count, whether it has state. */
    record Sub(String id, int partitions, boolean stateful) {
    }

    /** One process and its members (stream threads), in join order. */
    record Proc(String id, String rack, Map<String, String> tags, List<String> members) {
    }

    /** One round's group: what both assignors are given besides the current tasks. */
    static final class Group {
        final List<Proc> procs = new ArrayList<>();
        final List<Sub> subs = new ArrayList<>();
        int standbys;
        List<String> rackTags = List.of();
        /** The change that led to this round ("start" for the first). */
        String change = "start";
        private int nextProc;
        private int nextMember;

        /** Every member id, with its process. */
        Map<String, Proc> members() {
            Map<String, Proc> out = new LinkedHashMap<>();
            for (Proc p : procs) {
                p.members().forEach(m -> out.put(m, p));
            }
            return out;
        }

        /** Every task, as subtopology id to partitions. */
        Map<String, Set<Integer>> tasks() {
            Map<String, Set<Integer>> out = new TreeMap<>();
            for (Sub s : subs) {
                Set<Integer> ps = new TreeSet<>();
                for (int p = 0; p < s.partitions(); p++) {
                    ps.add(p);
                }
                out.put(s.id(), ps);
            }
            return out;
        }

        boolean stateful(String sub) {
            return subs.stream().anyMatch(s -> s.id().equals(sub) && s.stateful());
        }

        Group copy() {
            Group g = new Group();
            procs.forEach(p -> g.procs.add(new Proc(p.id(), p.rack(), p.tags(), new ArrayList<>(p.members()))));
            g.subs.addAll(subs);
            g.standbys = standbys;
            g.rackTags = rackTags;
            g.nextProc = nextProc;
            g.nextMember = nextMember;
            return g;
        }

        private String newMember(String proc) {
            return proc + "-thread-" + nextMember++;
        }

        private void addProc(Random r, int threads) {
            String id = String.format("process-%02d", nextProc++);
            String rack = r.nextInt(4) == 0 ? null : "rack-" + r.nextInt(3);
            Map<String, String> tags = new TreeMap<>();
            if (!rackTags.isEmpty()) {
                tags.put("zone", "zone-" + r.nextInt(3));
            }
            Proc p = new Proc(id, rack, tags, new ArrayList<>());
            for (int t = 0; t < threads; t++) {
                p.members().add(newMember(id));
            }
            procs.add(p);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("  change: ").append(change).append("\n  standbys: ").append(standbys)
                    .append(", rack tags ").append(rackTags).append("\n  subtopologies:");
            subs.forEach(s -> b.append(' ').append(s.id()).append('x').append(s.partitions()).append(s.stateful() ? "(state)" : ""));
            b.append('\n');
            procs.forEach(p -> b.append("  ").append(p.id()).append(" rack ").append(p.rack()).append(' ').append(p.tags())
                    .append(": ").append(p.members()).append('\n'));
            return b.toString();
        }
    }

    /** The first round of chain {@code seed}. */
    static Group generate(Random r) {
        Group g = new Group();
        g.standbys = r.nextInt(3);
        if (r.nextInt(3) == 0) {
            g.rackTags = List.of("zone");
        }
        int subs = 1 + r.nextInt(4);
        for (int s = 0; s < subs; s++) {
            g.subs.add(new Sub(Integer.toString(s), 1 + r.nextInt(16), r.nextBoolean()));
        }
        int procs = 1 + r.nextInt(6);
        for (int p = 0; p < procs; p++) {
            g.addProc(r, 1 + r.nextInt(4));
        }
        return g;
    }

    /** The group of the round after {@code g}: one change, drawn from what the group allows. */
    static Group next(Group g, Random r) {
        Group n = g.copy();
        for (;;) {
            switch (r.nextInt(8)) {
                case 0, 1 -> {
                    if (n.procs.size() >= 10) {
                        continue;
                    }
                    n.addProc(r, 1 + r.nextInt(4));
                    n.change = "process joins";
                }
                case 2 -> {
                    if (n.procs.size() <= 1) {
                        continue;
                    }
                    n.procs.remove(r.nextInt(n.procs.size()));
                    n.change = "process leaves";
                }
                case 3 -> {
                    Proc p = n.procs.get(r.nextInt(n.procs.size()));
                    if (p.members().size() >= 4) {
                        continue;
                    }
                    p.members().add(n.newMember(p.id()));
                    n.change = "thread starts";
                }
                case 4 -> {
                    Proc p = n.procs.get(r.nextInt(n.procs.size()));
                    if (p.members().size() <= 1) {
                        continue;
                    }
                    p.members().remove(r.nextInt(p.members().size()));
                    n.change = "thread stops";
                }
                case 5 -> {
                    Proc p = n.procs.get(r.nextInt(n.procs.size()));
                    p.members().replaceAll(m -> n.newMember(p.id()));
                    n.change = "process restarts";
                }
                case 6 -> {
                    if (n.subs.size() < 5 && r.nextBoolean()) {
                        n.subs.add(new Sub(Integer.toString(n.subs.size()), 1 + r.nextInt(16), r.nextBoolean()));
                        n.change = "subtopology added";
                    } else {
                        int i = r.nextInt(n.subs.size());
                        Sub s = n.subs.get(i);
                        n.subs.set(i, new Sub(s.id(), s.partitions() + 1 + r.nextInt(4), s.stateful()));
                        n.change = "input partitions added";
                    }
                }
                default -> n.change = "nothing changes";
            }
            return n;
        }
    }
}
