package dev.assignd.oracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;

/**
 * The one invariant checker and the one move count of the Streams oracle,
 * used on both sides' plans: a plan is member id to {@link MemberAssignment}
 * (active and standby tasks, subtopology id to partitions), as the broker's
 * {@code TaskAssignor} returns it.
 */
final class StreamsPlans {
    private StreamsPlans() {
    }

    /** A task: subtopology id and partition. */
    record Task(String sub, int partition) {
        @Override
        public String toString() {
            return sub + "_" + partition;
        }
    }

    /**
     * Every way {@code plan} breaks what a task plan for {@code g} must keep:
     * only the group's members; every task active on exactly one member;
     * standbys only of stateful tasks, never on the process of the task's
     * active nor two replicas of a task on one process, and as many as the
     * group asks for where it has the processes (min(standbys, processes -
     * 1)); members' active task counts within one of each other.
     */
    static List<String> violations(StreamsGroups.Group g, Map<String, MemberAssignment> plan) {
        List<String> bad = new ArrayList<>();
        Map<String, StreamsGroups.Proc> members = g.members();
        Map<Task, Integer> actives = new HashMap<>();
        Map<Task, Set<String>> procsOf = new HashMap<>();
        Map<Task, Integer> standbys = new HashMap<>();
        Map<String, Set<Integer>> tasks = g.tasks();
        int lo = Integer.MAX_VALUE, hi = 0;
        for (String m : members.keySet()) {
            MemberAssignment a = plan.get(m);
            int n = a == null ? 0 : count(a.activeTasks());
            lo = Math.min(lo, n);
            hi = Math.max(hi, n);
        }
        for (Map.Entry<String, MemberAssignment> e : plan.entrySet()) {
            StreamsGroups.Proc p = members.get(e.getKey());
            if (p == null) {
                bad.add("plan for " + e.getKey() + ", not a member");
                continue;
            }
            for (Task t : list(e.getValue().activeTasks())) {
                if (!tasks.getOrDefault(t.sub(), Set.of()).contains(t.partition())) {
                    bad.add("active " + t + " on " + e.getKey() + " is not a task of the topology");
                }
                actives.merge(t, 1, Integer::sum);
                if (!procsOf.computeIfAbsent(t, k -> new HashSet<>()).add(p.id())) {
                    bad.add("two replicas of " + t + " on process " + p.id());
                }
            }
        }
        for (Map.Entry<String, MemberAssignment> e : plan.entrySet()) {
            StreamsGroups.Proc p = members.get(e.getKey());
            if (p == null) {
                continue;
            }
            for (Task t : list(e.getValue().standbyTasks())) {
                if (!g.stateful(t.sub())) {
                    bad.add("standby of stateless task " + t + " on " + e.getKey());
                }
                standbys.merge(t, 1, Integer::sum);
                if (!procsOf.computeIfAbsent(t, k -> new HashSet<>()).add(p.id())) {
                    bad.add("standby " + t + " on " + e.getKey() + ": process " + p.id() + " already has a replica");
                }
            }
        }
        int want = Math.min(g.standbys, g.procs.size() - 1);
        tasks.forEach((sub, ps) -> {
            for (int q : ps) {
                Task t = new Task(sub, q);
                int n = actives.getOrDefault(t, 0);
                if (n != 1) {
                    bad.add("task " + t + " is active on " + n + " members");
                }
                int s = standbys.getOrDefault(t, 0);
                if (g.stateful(sub) && s != want) {
                    bad.add("task " + t + " has " + s + " standbys, want " + want);
                }
            }
        });
        if (!members.isEmpty() && hi - lo > 1) {
            bad.add("active tasks per member from " + lo + " to " + hi);
        }
        return bad;
    }

    /** The invariant a violation of {@link #violations} breaks, in a few words. */
    static String kind(String violation) {
        if (violation.startsWith("active tasks per member")) {
            return "active tasks per member within one";
        } else if (violation.contains("standbys, want")) {
            return "standbys per stateful task";
        } else if (violation.contains("replica")) {
            return "one replica of a task per process";
        } else if (violation.contains("is active on")) {
            return "every task active exactly once";
        }
        return "tasks and members of the group";
    }

    /** What one round moved, against the side's own previous round. */
    record Moves(int active, int activeAcrossProcesses, int restoring, int standby) {
        static final Moves NONE = new Moves(0, 0, 0, 0);

        Moves plus(Moves o) {
            return new Moves(active + o.active, activeAcrossProcesses + o.activeAcrossProcesses, restoring + o.restoring,
                    standby + o.standby);
        }
    }

    /**
     * Counts the moves from {@code prev} (the plan of round {@code before})
     * to {@code plan}: an active task whose member changed (and, of those,
     * whose process changed, and of those, the stateful ones: to a process
     * that held no replica of the task, they must restore); a standby on a
     * process that held no replica of the task before (its state must be
     * built). A task the previous round did not have moves nothing.
     */
    static Moves moves(StreamsGroups.Group before, Map<String, MemberAssignment> prev, StreamsGroups.Group g,
                       Map<String, MemberAssignment> plan) {
        Map<String, StreamsGroups.Proc> prevProcs = before.members();
        Map<Task, String> prevActive = new HashMap<>();
        Set<String> prevReplicas = new HashSet<>(); // task@process
        prev.forEach((m, a) -> {
            String proc = prevProcs.get(m).id();
            for (Task t : list(a.activeTasks())) {
                prevActive.put(t, m);
                prevReplicas.add(t + "@" + proc);
            }
            for (Task t : list(a.standbyTasks())) {
                prevReplicas.add(t + "@" + proc);
            }
        });
        Map<String, StreamsGroups.Proc> procs = g.members();
        int active = 0, across = 0, restoring = 0, standby = 0;
        for (Map.Entry<String, MemberAssignment> e : plan.entrySet()) {
            String proc = procs.get(e.getKey()).id();
            for (Task t : list(e.getValue().activeTasks())) {
                String was = prevActive.get(t);
                if (was != null && !was.equals(e.getKey())) {
                    active++;
                    if (!prevProcs.get(was).id().equals(proc)) {
                        across++;
                        if (g.stateful(t.sub()) && !prevReplicas.contains(t + "@" + proc)) {
                            restoring++;
                        }
                    }
                }
            }
            for (Task t : list(e.getValue().standbyTasks())) {
                if (prevActive.containsKey(t) && !prevReplicas.contains(t + "@" + proc)) {
                    standby++;
                }
            }
        }
        return new Moves(active, across, restoring, standby);
    }

    /**
     * With rack tags, the standby replicas that share every tag value with
     * another replica of their task although the group has a process whose
     * values differ from all of that task's other replicas: the spread
     * {@code rack.aware.assignment.tags} asks for and the plan missed.
     */
    static int sameTagStandbys(StreamsGroups.Group g, Map<String, MemberAssignment> plan) {
        if (g.rackTags.isEmpty()) {
            return 0;
        }
        Map<String, StreamsGroups.Proc> procs = g.members();
        Map<Task, List<Map<String, String>>> replicaTags = new HashMap<>();
        Map<Task, List<Map<String, String>>> standbyTags = new HashMap<>();
        plan.forEach((m, a) -> {
            Map<String, String> tags = procs.get(m).tags();
            list(a.activeTasks()).forEach(t -> replicaTags.computeIfAbsent(t, k -> new ArrayList<>()).add(tags));
            list(a.standbyTasks()).forEach(t -> {
                replicaTags.computeIfAbsent(t, k -> new ArrayList<>()).add(tags);
                standbyTags.computeIfAbsent(t, k -> new ArrayList<>()).add(tags);
            });
        });
        Set<Map<String, String>> all = new HashSet<>();
        g.procs.forEach(p -> all.add(p.tags()));
        int n = 0;
        for (Map.Entry<Task, List<Map<String, String>>> e : standbyTags.entrySet()) {
            List<Map<String, String>> replicas = replicaTags.get(e.getKey());
            for (Map<String, String> tags : e.getValue()) {
                List<Map<String, String>> others = new ArrayList<>(replicas);
                others.remove(tags);
                boolean shared = others.contains(tags);
                boolean free = all.stream().anyMatch(x -> !others.contains(x));
                if (shared && free) {
                    n++;
                }
            }
        }
        return n;
    }

    static List<Task> list(Map<String, Set<Integer>> tasks) {
        List<Task> out = new ArrayList<>();
        tasks.forEach((sub, ps) -> ps.forEach(p -> out.add(new Task(sub, p))));
        return out;
    }

    static int count(Map<String, Set<Integer>> tasks) {
        return tasks.values().stream().mapToInt(Set::size).sum();
    }
}
