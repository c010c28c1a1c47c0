package dev.assignd.oracle.kafkasuites;

import java.lang.reflect.Field;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignorTest;
import org.apache.kafka.clients.consumer.RangeAssignorTest;
import org.apache.kafka.clients.consumer.RoundRobinAssignorTest;
import org.apache.kafka.clients.consumer.StickyAssignorTest;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.junit.jupiter.api.BeforeEach;

/**
 * Kafka's own assignor test classes from the kafka-clients test jar, each
 * with its assignor replaced by the assignd-backed one. They are run by
 * {@link dev.assignd.oracle.KafkaSuitesTest} through the JUnit launcher, not
 * by Surefire directly (their names do not end in Test), so that a Kafka
 * test failing on assignd is reported, counted and compared with a floor
 * instead of failing the build one by one.
 */
public final class Suites {
    private Suites() {
    }

    /** RangeAssignorTest: its assignor is a final field, replaced after construction. */
    public static class RangeOnAssignd extends RangeAssignorTest {
        @BeforeEach
        void useAssignd() throws ReflectiveOperationException {
            replace(this, RangeAssignorTest.class, new OracleAssignors.Range());
        }
    }

    /** RoundRobinAssignorTest, likewise. */
    public static class RoundRobinOnAssignd extends RoundRobinAssignorTest {
        @BeforeEach
        void useAssignd() throws ReflectiveOperationException {
            replace(this, RoundRobinAssignorTest.class, new OracleAssignors.RoundRobin());
        }
    }

    /** StickyAssignorTest and the AbstractStickyAssignorTest cases it inherits. */
    public static class StickyOnAssignd extends StickyAssignorTest {
        @Override
        public AbstractStickyAssignor createAssignor() {
            return new OracleAssignors.Sticky();
        }
    }

    /** CooperativeStickyAssignorTest and the AbstractStickyAssignorTest cases it inherits. */
    public static class CooperativeStickyOnAssignd extends CooperativeStickyAssignorTest {
        @Override
        public AbstractStickyAssignor createAssignor() {
            return new OracleAssignors.CooperativeSticky();
        }
    }

    private static void replace(Object test, Class<?> declaring, Object assignor) throws ReflectiveOperationException {
        Field f = declaring.getDeclaredField("assignor");
        f.setAccessible(true);
        f.set(test, assignor);
    }
}
