package dev.assignd.kafka.broker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.api.streams.assignor.AssignmentConfigs;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;

/**
 * A streams group as the coordinator hands it to a task assignor (its
 * {@link GroupSpec} and {@link TopologyDescriber}), built fluently, and
 * the one invariant checker of a task plan the plugin's tests share.
 */
class FakeStreamsGroup implements GroupSpec, TopologyDescriber {
  /** One member's metadata and current tasks, as the broker keeps them. */
  static final class Member implements MemberAssignmentMetadata, MemberAssignmentState {
    final String process;
    String instance;
    String rack;
    final Map<String, String> tags = new TreeMap<>();
    Map<String, Set<Integer>> active = Map.of();
    Map<String, Set<Integer>> standby = Map.of();
    Map<String, Set<Integer>> warmup = Map.of();
    final Map<String, Map<Integer, Long>> offsets = new HashMap<>();
    final Map<String, Map<Integer, Long>> endOffsets = new HashMap<>();

    Member(String process) {
      this.process = process;
    }

    @Override
    public Optional<String> instanceId() {
      return Optional.ofNullable(instance);
    }

    @Override
    public Optional<String> rackId() {
      return Optional.ofNullable(rack);
    }

    @Override
    public String processId() {
      return process;
    }

    @Override
    public Map<String, String> clientTags() {
      return tags;
    }

    @Override
    public Map<String, Set<Integer>> activeTasks() {
      return active;
    }

    @Override
    public Map<String, Set<Integer>> standbyTasks() {
      return standby;
    }

    @Override
    public Map<String, Set<Integer>> warmupTasks() {
      return warmup;
    }

    @Override
    public Map<String, Map<Integer, Long>> taskOffsets() {
      return offsets;
    }

    @Override
    public Map<String, Map<Integer, Long>> taskEndOffsets() {
      return endOffsets;
    }
  }

  private record Configs(int numStandbyReplicas, List<String> rackAwareAssignmentTags) implements AssignmentConfigs {}

  final Map<String, Member> members = new LinkedHashMap<>();
  final Map<String, Integer> partitions = new LinkedHashMap<>();
  final Set<String> stateful = new TreeSet<>();
  int standbys;
  List<String> rackTags = List.of();

  FakeStreamsGroup subtopology(String id, int tasks, boolean isStateful) {
    partitions.put(id, tasks);
    if (isStateful) {
      stateful.add(id);
    }
    return this;
  }

  FakeStreamsGroup member(String id, String process) {
    members.put(id, new Member(process));
    return this;
  }

  FakeStreamsGroup standbys(int n) {
    standbys = n;
    return this;
  }

  FakeStreamsGroup remove(String id) {
    members.remove(id);
    return this;
  }

  /** Makes a plan the members' current tasks, as the coordinator does for the next epoch. */
  FakeStreamsGroup current(GroupAssignment a) {
    a.members().forEach((id, m) -> {
      Member mem = members.get(id);
      if (mem != null) {
        mem.active = m.activeTasks();
        mem.standby = m.standbyTasks();
      }
    });
    return this;
  }

  @Override
  public Collection<String> memberIds() {
    return members.keySet();
  }

  @Override
  public MemberAssignmentMetadata memberMetadata(String memberId) {
    return members.get(memberId);
  }

  @Override
  public MemberAssignmentState memberAssignmentState(String memberId) {
    return members.get(memberId);
  }

  @Override
  public AssignmentConfigs configs() {
    return new Configs(standbys, rackTags);
  }

  @Override
  public List<String> subtopologies() {
    return new ArrayList<>(partitions.keySet());
  }

  @Override
  public int maxNumInputPartitions(String subtopologyId) {
    Integer n = partitions.get(subtopologyId);
    if (n == null) {
      throw new java.util.NoSuchElementException(subtopologyId);
    }
    return n;
  }

  @Override
  public boolean isStateful(String subtopologyId) {
    return stateful.contains(subtopologyId);
  }

  /**
   * What is wrong with a plan of this group, "" when nothing: every member
   * has an entry and no one else; every task is active on exactly one
   * member; standbys are of stateful tasks only; no process holds two
   * replicas of a task; each stateful task has as many standbys as asked
   * for, or as the other processes allow; actives are balanced over the
   * members within one.
   */
  String violations(GroupAssignment a) {
    List<String> out = new ArrayList<>();
    if (!a.members().keySet().equals(members.keySet())) {
      out.add("members " + new TreeSet<>(a.members().keySet()) + ", want " + new TreeSet<>(members.keySet()));
    }
    Map<String, Integer> active = new TreeMap<>();
    Map<String, Integer> standby = new TreeMap<>();
    Set<String> replicas = new TreeSet<>();
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (Map.Entry<String, MemberAssignment> e : a.members().entrySet()) {
      Member m = members.get(e.getKey());
      String process = m == null ? "?" : m.process;
      int n = 0;
      for (var t : e.getValue().activeTasks().entrySet()) {
        for (int p : t.getValue()) {
          active.merge(t.getKey() + "_" + p, 1, Integer::sum);
          n++;
          if (!replicas.add(process + "/" + t.getKey() + "_" + p)) {
            out.add("process " + process + " holds task " + t.getKey() + "_" + p + " twice");
          }
        }
      }
      min = Math.min(min, n);
      max = Math.max(max, n);
      for (var t : e.getValue().standbyTasks().entrySet()) {
        if (!stateful.contains(t.getKey())) {
          out.add(e.getKey() + " has a standby of stateless subtopology " + t.getKey());
        }
        for (int p : t.getValue()) {
          standby.merge(t.getKey() + "_" + p, 1, Integer::sum);
          if (!replicas.add(process + "/" + t.getKey() + "_" + p)) {
            out.add("process " + process + " holds task " + t.getKey() + "_" + p + " twice");
          }
        }
      }
    }
    long processes = members.values().stream().map(m -> m.process).distinct().count();
    partitions.forEach((s, n) -> {
      for (int p = 0; p < n; p++) {
        String t = s + "_" + p;
        if (active.getOrDefault(t, 0) != 1) {
          out.add("task " + t + " is active " + active.getOrDefault(t, 0) + " times");
        }
        int want = stateful.contains(s) ? (int) Math.min(standbys, processes - 1) : 0;
        if (standby.getOrDefault(t, 0) != want) {
          out.add("task " + t + " has " + standby.getOrDefault(t, 0) + " standbys, want " + want);
        }
      }
    });
    if (!a.members().isEmpty() && max - min > 1) {
      out.add("actives per member from " + min + " to " + max);
    }
    return String.join("; ", out);
  }
}
