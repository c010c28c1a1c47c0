package dev.assignd.kafka.broker.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

/**
 * A KIP-1357 task assignor that records every call the broker makes (the
 * thread, the group's configs, the topology and each member's metadata
 * and current tasks and offsets) and then answers with the broker's own
 * {@link StickyTaskAssignor}, so the group runs as it would without it.
 * Loaded by the broker from {@code group.streams.assignors}.
 */
public final class ProbeTaskAssignor extends Probe implements TaskAssignor {
  private final StickyTaskAssignor sticky = new StickyTaskAssignor();
  @Override
  public GroupAssignment assign(GroupSpec spec, TopologyDescriber topology) throws TaskAssignorException {
    List<String> subs = new ArrayList<>();
    for (String s : new TreeSet<>(topology.subtopologies())) {
      subs.add(s + ":" + topology.maxNumInputPartitions(s) + ":" + (topology.isStateful(s) ? "stateful" : "stateless"));
    }
    StringBuilder b = new StringBuilder("streams")
        .append("\tthread=").append(Thread.currentThread().getName())
        .append("\tmembers=").append(spec.memberIds().size())
        .append("\tstandbys=").append(spec.configs().numStandbyReplicas())
        .append("\trackTags=").append(spec.configs().rackAwareAssignmentTags())
        .append("\tsubtopologies=").append(subs);
    for (String id : new TreeSet<>(spec.memberIds())) {
      MemberAssignmentMetadata m = spec.memberMetadata(id);
      MemberAssignmentState s = spec.memberAssignmentState(id);
      b.append("\n member=").append(id)
          .append("\tprocess=").append(m.processId())
          .append("\tinstance=").append(m.instanceId().orElse("-"))
          .append("\track=").append(m.rackId().orElse("-"))
          .append("\tclientTags=").append(new TreeMap<>(m.clientTags()))
          .append("\tactive=").append(sorted(s.activeTasks()))
          .append("\tstandby=").append(sorted(s.standbyTasks()))
          .append("\twarmup=").append(sorted(s.warmupTasks()))
          .append("\toffsets=").append(new TreeMap<>(s.taskOffsets()))
          .append("\tendOffsets=").append(new TreeMap<>(s.taskEndOffsets()));
    }
    GroupAssignment out = sticky.assign(spec, topology);
    for (var e : new TreeMap<>(out.members()).entrySet()) {
      b.append("\n target=").append(e.getKey())
          .append("\tactive=").append(sorted(e.getValue().activeTasks()))
          .append("\tstandby=").append(sorted(e.getValue().standbyTasks()));
    }
    log.write(b.toString());
    return out;
  }

  private static Map<String, TreeSet<Integer>> sorted(Map<String, ? extends java.util.Set<Integer>> tasks) {
    Map<String, TreeSet<Integer>> out = new TreeMap<>();
    tasks.forEach((k, v) -> out.put(k, new TreeSet<>(v)));
    return out;
  }
}
