package dev.assignd.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.testkit.AssigndExtension;
import java.lang.reflect.Field;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.RangeAssignorTest;
import org.apache.kafka.clients.consumer.RoundRobinAssignorTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kafka-clients' own RangeAssignorTest and RoundRobinAssignorTest (from its
 * test jar), run against the assignd-backed assignors: every inherited test
 * runs with the test's {@code assignor} field swapped for ours, so its
 * assertions on the public result (the partitions each member gets, racks
 * included) judge assignd's plans. After each test, nothing fell back: the
 * plans it checked were assignd's, and assignd served at least one.
 *
 * <p>Not used: StickyAssignorTest, CooperativeStickyAssignorTest and
 * AbstractStickyAssignorTest, which assert on Java internals
 * ({@code partitionsTransferringOwnership}, {@code isSticky()}, the
 * serialized user data of the built-in, exact plans that depend on
 * hash-map iteration) as much as on the result; their scenarios belong to
 * the differential oracle (another module), not to this one.
 */
class KafkaAssignorTests {
  @RegisterExtension
  static final AssigndExtension assignd = new AssigndExtension();

  /** Replaces the private final {@code assignor} field of a kafka-clients test instance. */
  static <T extends ConsumerPartitionAssignor> T swap(Object test, T ours) throws ReflectiveOperationException {
    Field f = test.getClass().getSuperclass().getDeclaredField("assignor");
    f.setAccessible(true);
    ((org.apache.kafka.common.Configurable) ours).configure(Map.of(AssigndConfig.TARGET, assignd.target(),
        AssigndConfig.DEADLINE_MS, "10000", "group.id", "kafka-tests"));
    f.set(test, ours);
    return ours;
  }

  /** Every plan of a Kafka test came from assignd: none fell back. */
  static void assertServedByAssignd(AssigndBacked ours) {
    assertEquals(0, ours.stats().getFallbacks(), ours.stats().toString());
    assertTrue(ours.stats().getServed() > 0, "the test's plans came from assignd");
  }

  @Nested
  class Range extends RangeAssignorTest {
    private AssigndRangeAssignor ours;

    @BeforeEach
    void useAssignd() throws ReflectiveOperationException {
      ours = swap(this, new AssigndRangeAssignor());
    }

    @AfterEach
    void noFallback() {
      assertServedByAssignd(ours);
    }
  }

  @Nested
  class RoundRobin extends RoundRobinAssignorTest {
    private AssigndRoundRobinAssignor ours;

    @BeforeEach
    void useAssignd() throws ReflectiveOperationException {
      ours = swap(this, new AssigndRoundRobinAssignor());
    }

    @AfterEach
    void noFallback() {
      assertServedByAssignd(ours);
    }
  }
}
