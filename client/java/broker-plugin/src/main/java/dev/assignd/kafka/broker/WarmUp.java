package dev.assignd.kafka.broker;

import assignd.v1.Assignment.AssignRequest;
import assignd.v1.Assignment.AssignResponse;
import assignd.v1.Assignment.MemberAssignment;
import assignd.v1.Assignment.TopicPartitions;
import dev.assignd.common.Channels;
import dev.assignd.common.ChannelSettings;
import dev.assignd.common.Diagnosis;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/**
 * Runs once per broker process and target, from {@code configure()} (the
 * broker's start), every code path an assignment takes, so that the first
 * assignment does not pay for a cold JVM: on Kafka 4.1.1 and 4.4.0 the
 * first call took 1.3 to 3 s (class loading, the first protobuf and gRPC
 * calls), several times the deadline. It builds and reads a request and an
 * answer of a made-up group, runs the fallback on it, and makes one gRPC
 * health check on the channel through the same call threads, which
 * connects to assignd and tells a target that is wrong (it does not
 * resolve, does not speak gRPC, refuses the handshake) at start.
 */
final class WarmUp implements GroupSpec, SubscribedTopicDescriber {
  /** How long the broker's start may wait for the health check (once per process and target). */
  static final long CHECK_MS = 10_000;
  private static final Map<ChannelSettings, Diagnosis> DONE = new ConcurrentHashMap<>();
  /** grpc.health.v1.Health/Check with an empty request (the server's overall health); the answer is not read. */
  private static final MethodDescriptor<byte[], byte[]> HEALTH_CHECK = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("grpc.health.v1.Health/Check")
      .setRequestMarshaller(Bytes.INSTANCE)
      .setResponseMarshaller(Bytes.INSTANCE)
      .build();
  private static final Uuid TOPIC = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
  private static final Diagnosis OK = new Diagnosis(null, "", null, false);
  /** Every member's: no rack, no instance id, the one topic. */
  private static final MemberSubscription SUBSCRIPTION = new Subscription(Optional.empty(), Optional.empty(), Set.of(TOPIC));

  private record Subscription(Optional<String> rackId, Optional<String> instanceId, Set<Uuid> subscribedTopicIds)
      implements MemberSubscription {}

  private WarmUp() {}

  /**
   * Warms this process for c, once per target; returns what the health
   * check found wrong, or null when it passed (or was done before).
   */
  static Diagnosis run(PluginConfig c, ConsumerGroupPartitionAssignor fallback) {
    return once(DONE, c.channel, () -> {
      WarmUp g = new WarmUp();
      Requests.Built built = Requests.build(c.groupId, c.protocol, g, g);
      AssignRequest req = ProtoUtils.marshaller(AssignRequest.getDefaultInstance())
          .parse(ProtoUtils.marshaller(AssignRequest.getDefaultInstance()).stream(built.request()));
      AssignResponse resp = AssignResponse.newBuilder().setTargetAssignment(true)
          .addAssignments(MemberAssignment.newBuilder().setMemberId("m1")
              .addPartitions(TopicPartitions.newBuilder().setTopic(TOPIC.toString()).addPartitions(0)))
          .addAssignments(MemberAssignment.newBuilder().setMemberId("m2")
              .addPartitions(TopicPartitions.newBuilder().setTopic(TOPIC.toString()).addPartitions(1)))
          .build();
      resp = ProtoUtils.marshaller(AssignResponse.getDefaultInstance())
          .parse(ProtoUtils.marshaller(AssignResponse.getDefaultInstance()).stream(resp));
      Requests.toAssignment(new Requests.Built(req, built.topicIds(), built.partitions(), built.subscriptions()), resp);
      fallback.assign(g, g);
      Diagnosis.of(Status.UNAVAILABLE.asRuntimeException(), c.deadlineKey, c.deadlineMs);
      return check(c.channel);
    });
  }

  /**
   * Runs warm once per process and target, for one kind of plugin (done is
   * that kind's record): what it found wrong the first time, else null.
   */
  static Diagnosis once(Map<ChannelSettings, Diagnosis> done, ChannelSettings target, Supplier<Diagnosis> warm) {
    Diagnosis[] found = {null};
    done.computeIfAbsent(target, k -> {
      found[0] = warm.get();
      return found[0] == null ? OK : found[0];
    });
    return found[0];
  }

  /**
   * One gRPC health check of the channel's target, through the call
   * threads, bounded by {@value #CHECK_MS} ms; what it found wrong, or null.
   */
  static Diagnosis check(ChannelSettings channel) {
    if (channel.target() == null) {
      return null; // configure() reports it
    }
    try {
      BoundedCall.await(() -> ClientCalls.blockingUnaryCall(Channels.get(channel), HEALTH_CHECK,
          CallOptions.DEFAULT.withDeadlineAfter(CHECK_MS, TimeUnit.MILLISECONDS), new byte[0]),
          System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CHECK_MS + 100));
      return null;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED || e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return null; // a server without health checking (a proxy): the first assignment tells
      }
      return Diagnosis.of(e, "start-up health check deadline ms", CHECK_MS);
    }
  }

  /** Forgets which targets were warmed, for tests. */
  static void reset() {
    DONE.clear();
  }

  /** Runs a built-in assignor on the made-up group, so that a fallback's first real run does not load its classes. */
  static void runBuiltin(org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor builtin) {
    WarmUp g = new WarmUp();
    builtin.assign(g, g);
  }

  // A group of two members on one topic of two partitions.

  @Override
  public Collection<String> memberIds() {
    return List.of("m1", "m2");
  }

  @Override
  public SubscriptionType subscriptionType() {
    return SubscriptionType.HOMOGENEOUS;
  }

  @Override
  public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
    return false;
  }

  @Override
  public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
    return true;
  }

  @Override
  public MemberSubscription memberSubscription(String memberId) {
    return SUBSCRIPTION;
  }

  @Override
  public org.apache.kafka.coordinator.group.api.assignor.MemberAssignment memberAssignment(String memberId) {
    return Collections::emptyMap; // the built-in assignors insist on an unmodifiable map
  }

  @Override
  public int numPartitions(Uuid topicId) {
    return TOPIC.equals(topicId) ? 2 : -1;
  }

  @Override
  public Set<String> racksForPartition(Uuid topicId, int partition) {
    return Set.of();
  }

  /** The health check's messages, left as bytes. */
  private enum Bytes implements MethodDescriptor.Marshaller<byte[]> {
    INSTANCE;

    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (java.io.IOException e) {
        throw Status.INTERNAL.withCause(e).asRuntimeException();
      }
    }
  }
}
