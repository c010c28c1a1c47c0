package dev.assignd.kafka;

import static dev.assignd.kafka.Groups.tp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a member sends in JoinGroup is the built-in assignor's, byte for
 * byte: the protocol name, the supported protocols and the subscription user
 * data, before any assignment and after each of several (the sticky
 * assignors' user data carries the generation and, for sticky, the
 * partitions). No assignd is needed: a member that does not lead never
 * calls it.
 */
class UserDataTest {
  static Stream<Groups.Pair> pairs() {
    return Groups.pairs().stream();
  }

  private static byte[] bytes(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    ByteBuffer d = b.duplicate();
    byte[] out = new byte[d.remaining()];
    d.get(out);
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("pairs")
  void joinGroupMetadataIsTheBuiltIns(Groups.Pair pair) {
    ConsumerPartitionAssignor ours = Groups.configured(pair.assignd(), Map.of(AssigndConfig.TARGET, "127.0.0.1:1"));
    ConsumerPartitionAssignor theirs = pair.builtIn().get();
    assertEquals(theirs.name(), ours.name());
    assertEquals(theirs.supportedProtocols(), ours.supportedProtocols());
    assertEquals(theirs.version(), ours.version());
    Set<String> topics = Set.of("orders", "payments");
    assertArrayEquals(bytes(theirs.subscriptionUserData(topics)), bytes(ours.subscriptionUserData(topics)), "before any assignment");

    List<List<?>> rounds = List.of(
        List.of(3, List.of(tp("orders", 0), tp("orders", 3))),
        List.of(4, List.of()),
        List.of(9, List.of(tp("payments", 1), tp("orders", 2), tp("orders", 7))));
    for (List<?> r : rounds) {
      int gen = (Integer) r.get(0);
      @SuppressWarnings("unchecked")
      var parts = (List<org.apache.kafka.common.TopicPartition>) r.get(1);
      var meta = new ConsumerGroupMetadata("g", gen, "member-1", Optional.empty());
      ours.onAssignment(new Assignment(parts), meta);
      theirs.onAssignment(new Assignment(parts), meta);
      byte[] want = bytes(theirs.subscriptionUserData(topics));
      assertArrayEquals(want, bytes(ours.subscriptionUserData(topics)), "after generation " + gen);
      if (pair.name().contains("sticky")) {
        // The bytes are not trivially equal: they change with the assignment.
        assertEquals(true, want != null && want.length >= 4, "sticky user data carries the generation");
      }
    }
  }
}
