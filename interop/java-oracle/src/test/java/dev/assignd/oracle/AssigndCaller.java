package dev.assignd.oracle;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.AssignmentView;
import assignd.v1.Assignment.Member;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.PartitionRacks;
import assignd.v1.Assignment.RebalanceProtocol;
import assignd.v1.Assignment.Topic;
import assignd.v1.Assignment.TopicPartitions;
import assignd.v1.AssignmentServiceGrpc;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Calls assignd with exactly what a Java leader's assignor receives: the
 * partitions per topic (with replica racks) and the decoded subscriptions,
 * sent in the explicit member form (docs/other-languages.md). This is the one
 * conversion from Java's inputs to assignd's; the random harness, the Kafka
 * test suites and the benchmark all go through it.
 */
final class AssigndCaller implements AutoCloseable {
    private final ManagedChannel channel;
    private final AssignmentServiceGrpc.AssignmentServiceBlockingStub stub;

    AssigndCaller(String target) {
        channel = ManagedChannelBuilder.forTarget(target)
                .usePlaintext()
                .maxInboundMessageSize(256 << 20)
                .build();
        stub = AssignmentServiceGrpc.newBlockingStub(channel);
    }

    /** The rebalance protocol a Java group of this protocol name runs. */
    static RebalanceProtocol protocolOf(String protocolName) {
        return "cooperative-sticky".equals(protocolName)
                ? RebalanceProtocol.REBALANCE_PROTOCOL_COOPERATIVE
                : RebalanceProtocol.REBALANCE_PROTOCOL_EAGER;
    }

    /** Builds the request for one rebalance, members in the map's order. */
    static AssignRequest request(String protocolName, Map<String, List<PartitionInfo>> partitionsPerTopic,
                                 Map<String, Subscription> subscriptions, AssignmentView view) {
        AssignRequest.Builder req = AssignRequest.newBuilder()
                .setGroupId("oracle")
                .setProtocolName(protocolName)
                .setRebalanceProtocol(protocolOf(protocolName))
                .setView(view);
        for (Map.Entry<String, List<PartitionInfo>> e : partitionsPerTopic.entrySet()) {
            Topic.Builder t = Topic.newBuilder().setName(e.getKey()).setPartitionCount(e.getValue().size());
            List<PartitionInfo> infos = new ArrayList<>(e.getValue());
            infos.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            for (int i = 0; i < infos.size(); i++) {
                if (infos.get(i).partition() != i) {
                    throw new IllegalArgumentException("topic " + e.getKey() + ": partitions are not 0.." + (infos.size() - 1));
                }
                Node[] replicas = infos.get(i).replicas();
                if (replicas == null || replicas.length == 0) {
                    continue;
                }
                TreeSet<String> racks = new TreeSet<>();
                for (Node n : replicas) {
                    if (n != null && n.hasRack()) {
                        racks.add(n.rack());
                    }
                }
                if (!racks.isEmpty()) {
                    t.addPartitionRacks(PartitionRacks.newBuilder().setPartition(i).addAllRacks(racks));
                }
            }
            req.addTopics(t);
        }
        for (Map.Entry<String, Subscription> e : subscriptions.entrySet()) {
            Subscription s = e.getValue();
            Member.Builder m = Member.newBuilder().setMemberId(e.getKey()).addAllTopics(s.topics());
            s.groupInstanceId().ifPresent(m::setGroupInstanceId);
            Map<String, List<Integer>> owned = new LinkedHashMap<>();
            for (TopicPartition tp : s.ownedPartitions()) {
                owned.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
            }
            owned.forEach((topic, ps) -> m.addOwnedPartitions(TopicPartitions.newBuilder().setTopic(topic).addAllPartitions(ps)));
            if (s.userData() != null) {
                // From the start: Java's assignors read the same buffer (the
                // Kafka suites hand both sides one Subscription) and may leave
                // its position at the end; they rewind it themselves before
                // reading it again.
                ByteBuffer ud = s.userData().duplicate();
                ud.rewind();
                m.setUserData(ByteString.copyFrom(ud));
            }
            s.generationId().ifPresent(m::setGeneration);
            s.rackId().ifPresent(m::setRackId);
            req.addMembers(m);
        }
        return req.build();
    }

    /** One Assign call with a deadline. */
    AssignResponse call(AssignRequest req, long deadlineMillis) {
        return stub.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS).assign(req);
    }

    /**
     * The plan assignd returns, shaped as Java's assignors return theirs: every
     * member of the request, with the partitions it may consume now.
     */
    static Map<String, List<TopicPartition>> plan(AssignResponse resp) {
        Map<String, List<TopicPartition>> out = new HashMap<>();
        for (MemberAssignment a : resp.getAssignmentsList()) {
            List<TopicPartition> tps = new ArrayList<>();
            for (TopicPartitions t : a.getPartitionsList()) {
                for (int p : t.getPartitionsList()) {
                    tps.add(new TopicPartition(t.getTopic(), p));
                }
            }
            out.put(a.getMemberId(), tps);
        }
        return out;
    }

    /** The partitions assignd withholds until their owners revoke them (KIP-429). */
    static List<TopicPartition> pending(AssignResponse resp) {
        List<TopicPartition> out = new ArrayList<>();
        for (TopicPartitions t : resp.getPendingList()) {
            for (int p : t.getPartitionsList()) {
                out.add(new TopicPartition(t.getTopic(), p));
            }
        }
        return out;
    }

    /** Convenience: request, call and plan in one, checking who answered. */
    Map<String, List<TopicPartition>> assign(String protocolName, Map<String, List<PartitionInfo>> partitionsPerTopic,
                                             Map<String, Subscription> subscriptions) {
        AssignResponse resp = call(request(protocolName, partitionsPerTopic, subscriptions, AssignmentView.ASSIGNMENT_VIEW_FULL), 60_000);
        if (!resp.getAssignor().equals(protocolName) || resp.getAssignorVersion() != 1) {
            throw new IllegalStateException("assignd ran " + resp.getAssignor() + "@" + resp.getAssignorVersion()
                    + " for " + protocolName + " (policy " + resp.getPolicy() + ")");
        }
        return plan(resp);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Sorted copy of a plan, for printing and comparing. */
    static Map<String, List<TopicPartition>> sorted(Map<String, List<TopicPartition>> plan) {
        Map<String, List<TopicPartition>> out = new TreeMap<>();
        plan.forEach((m, tps) -> {
            List<TopicPartition> l = new ArrayList<>(tps);
            l.sort(Plans.TP_ORDER);
            out.put(m, l);
        });
        return out;
    }
}
