package dev.assignd.oracle;

import dev.assignd.oracle.Group.MemberSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/** The figures of one assignor over many groups, and the report they make. */
final class Tally {
    final String protocol;
    int groups;
    int orderIndependent;
    int exact;
    int orderDependent;
    int worseBalance;
    /** Mismatches where Java's own plan breaks an invariant: assignd is right to differ. */
    int javaUnsafeMismatches;
    int assigndUnbalanced;
    int javaUnbalanced;
    long assigndSpread;
    long javaSpread;
    long assigndMoved;
    long javaMoved;
    long assigndImbalance;
    long javaImbalance;
    final List<String> invalid = new ArrayList<>();
    final List<String> javaInvalid = new ArrayList<>();
    final List<String> unstable = new ArrayList<>();
    /** Reproducers by family. */
    final Map<String, List<String>> mismatches = new TreeMap<>();
    final List<String> worse = new ArrayList<>();

    Tally(String protocol) {
        this.protocol = protocol;
    }

    double exactRate() {
        return orderIndependent == 0 ? 1.0 : (double) exact / orderIndependent;
    }

    int mismatchCount() {
        return orderIndependent - exact;
    }

    /**
     * The mismatch family of a shrunk reproducer: how the plans differ (the
     * first that applies of: Java's plan breaks an invariant; they move a
     * different number of partitions from live owners; they give a different
     * number of partitions to members on a replica's rack; other members get
     * the extra partitions of an uneven split; the same counts, other
     * partitions), then the features of the input.
     */
    static String family(Oracle.Outcome o) {
        Group g = o.group();
        List<String> tags = new ArrayList<>();
        Map<String, List<TopicPartition>> j = o.javaPlans().get(0);
        Map<String, List<TopicPartition>> a = o.assignd().plan();
        Map<TopicPartition, String> owners = Plans.validOwners(g);
        int jMoved = Plans.quality(g, j, owners).moved();
        int aMoved = Plans.quality(g, a, owners).moved();
        int jRack = rackMatches(g, j);
        int aRack = rackMatches(g, a);
        boolean sameCounts = j.keySet().stream().allMatch(m -> j.get(m).size() == a.getOrDefault(m, List.of()).size());
        String diff;
        if (!o.javaViolations().isEmpty()) {
            diff = "Java's plan breaks an invariant (" + o.javaViolations().get(0).replaceAll("^\\S+ ", "").replaceAll("\\[.*\\]", "[...]")
                    .replaceAll("consumer-\\S+", "M") + ")";
        } else if (jMoved != aMoved) {
            diff = aMoved < jMoved ? "assignd moves fewer partitions" : "assignd moves more partitions";
        } else if (jRack != aRack) {
            diff = aRack > jRack ? "assignd places more partitions on their replicas' racks" : "assignd places fewer partitions on their replicas' racks";
        } else if (!sameCounts) {
            diff = "other members get the extra partitions of an uneven split";
        } else {
            diff = "same counts, other partitions";
        }
        boolean racks = g.topics().stream().anyMatch(t -> !t.racks().isEmpty()) && g.members().stream().anyMatch(m -> m.rack() != null && m.version() >= 3);
        if (racks) {
            tags.add("racks");
        }
        List<String> first = g.members().get(0).topics().stream().sorted().toList();
        if (g.members().stream().anyMatch(m -> !m.topics().stream().sorted().toList().equals(first))) {
            tags.add("unequal-subscriptions");
        }
        int maxGen = g.members().stream().mapToInt(MemberSpec::generation).max().orElse(-1);
        if (g.members().stream().anyMatch(m -> !m.owned().isEmpty() && m.generation() < maxGen)) {
            tags.add("stale-generation");
        }
        if (g.members().stream().anyMatch(m -> !m.owned().isEmpty())) {
            tags.add("owned");
        } else {
            tags.add("fresh");
        }
        if (g.members().stream().anyMatch(m -> m.instanceId() != null)) {
            tags.add("static-members");
        }
        if (g.members().stream().anyMatch(m -> m.version() < 2)) {
            tags.add("subscription-v0/v1");
        }
        if (g.members().stream().anyMatch(m -> m.topics().contains("missing-topic"))) {
            tags.add("missing-topic");
        }
        return diff + " | " + String.join(" + ", tags);
    }

    /** Partitions assigned to a member whose rack holds one of their replicas. */
    static int rackMatches(Group g, Map<String, List<TopicPartition>> plan) {
        return onRack(g, plan, true);
    }

    /**
     * Partitions of the plan assigned to a rack-aware member (a rack, and
     * subscription v3 or later, which carries it) of a topic with replica
     * racks, on one of its replicas' racks (matching) or on none of them.
     */
    static int onRack(Group g, Map<String, List<TopicPartition>> plan, boolean matching) {
        Map<String, Group.TopicSpec> topics = new java.util.HashMap<>();
        g.topics().forEach(t -> topics.put(t.name(), t));
        int n = 0;
        for (MemberSpec m : g.members()) {
            if (m.rack() == null || m.version() < 3) {
                continue;
            }
            for (TopicPartition tp : plan.getOrDefault(m.id(), List.of())) {
                Group.TopicSpec t = topics.get(tp.topic());
                if (t != null && !t.racks().isEmpty() && t.racks().get(tp.partition()).contains(m.rack()) == matching) {
                    n++;
                }
            }
        }
        return n;
    }

    /** The kind of difference of a family, without the input's features. */
    static String kind(String family) {
        int i = family.indexOf(" | ");
        return i < 0 ? family : family.substring(0, i);
    }

    /** The exact-match rate counting the groups where Java's plan is invalid as matches. */
    double adjustedRate() {
        return orderIndependent == 0 ? 1.0 : (double) (exact + javaUnsafeMismatches) / orderIndependent;
    }

    static String reproducer(String title, Oracle.Outcome o) {
        return "##### " + title + "\n\n```\n" + o.group().describe()
                + "java (kafka-clients):\n" + Plans.show(o.javaPlans().get(0))
                + "assignd:\n" + Plans.show(o.assignd().plan())
                + (o.assignd().pending().isEmpty() ? "" : "assignd pending: " + Plans.compact(o.assignd().pending()) + "\n")
                + "```\n";
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("## ").append(protocol).append("\n\n");
        b.append(String.format(Locale.ROOT, "- groups: %d; Java's result independent of insertion order: %d; order-dependent: %d%n",
                groups, orderIndependent, orderDependent));
        b.append(String.format(Locale.ROOT, "- exact match where order-independent: %d/%d = %.1f%%%n", exact, orderIndependent, 100 * exactRate()));
        if (javaUnsafeMismatches > 0) {
            b.append(String.format(Locale.ROOT, "- of the mismatches, %d are groups where Java's own plan breaks an invariant (below); not counting them: %.1f%%%n",
                    javaUnsafeMismatches, 100 * adjustedRate()));
        }
        b.append(String.format(Locale.ROOT, "- invalid assignd plans: %d; assignd plans that change with request order: %d; Java plans the checker rejects: %d%n",
                invalid.size(), unstable.size(), javaInvalid.size()));
        if (orderDependent > 0) {
            b.append("- order-dependent groups, totals (cooperative-sticky: after the follow-up rebalances):\n\n");
            b.append("  | | assignd | Java (order 0) |\n  | --- | --- | --- |\n");
            b.append(String.format(Locale.ROOT, "  | unbalanced plans (Java's criterion) | %d | %d |%n", assigndUnbalanced, javaUnbalanced));
            b.append(String.format(Locale.ROOT, "  | sum of imbalance (max-min count) | %d | %d |%n", assigndImbalance, javaImbalance));
            b.append(String.format(Locale.ROOT, "  | sum of per-topic spread | %d | %d |%n", assigndSpread, javaSpread));
            b.append(String.format(Locale.ROOT, "  | partitions moved from live owners | %d | %d |%n", assigndMoved, javaMoved));
            b.append(String.format(Locale.ROOT, "  | less balanced than every Java order | %d | |%n%n", worseBalance));
        }
        b.append('\n');
        if (!mismatches.isEmpty()) {
            Map<String, Integer> byKind = new TreeMap<>();
            mismatches.forEach((f, l) -> byKind.merge(kind(f), l.size(), Integer::sum));
            b.append("### Mismatches by kind of difference\n\n");
            byKind.forEach((k, n) -> b.append("- ").append(k).append(": ").append(n).append('\n'));
            b.append('\n');
            b.append("### Mismatch families\n\n");
            mismatches.forEach((f, l) -> b.append("- ").append(f).append(": ").append(l.size()).append('\n'));
            b.append('\n');
            mismatches.forEach((f, l) -> {
                b.append("#### ").append(f).append("\n\n");
                l.forEach(s -> b.append(s).append('\n'));
            });
        }
        for (String s : invalid) {
            b.append(s).append('\n');
        }
        for (String s : unstable) {
            b.append(s).append('\n');
        }
        for (String s : javaInvalid) {
            b.append(s).append('\n');
        }
        worse.forEach(s -> b.append(s).append('\n'));
        return b.toString();
    }

    static Path write(String file, String text) throws IOException {
        Path dir = Path.of(System.getProperty("oracle.report", "target/oracle"));
        Files.createDirectories(dir);
        Path p = dir.resolve(file);
        Files.writeString(p, text);
        return p;
    }
}
