package dev.assignd.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.oracle.Group.MemberSpec;
import dev.assignd.oracle.Group.TopicSpec;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The oracle's own checker and shrinker, on hand-made plans: they must catch what they claim to. */
class PlansTest {
    private static TopicPartition tp(String t, int p) {
        return new TopicPartition(t, p);
    }

    /** Two members on topic t (2 partitions); a owned t-0 at generation 5, b owns t-0 at generation gB. */
    private static Group group(String protocol, int genB) {
        return new Group(protocol, List.of(new TopicSpec("t", 2, List.of()), new TopicSpec("u", 1, List.of())), List.of(
                new MemberSpec("a", null, List.of("t"), List.of(tp("t", 0)), 5, 3, null),
                new MemberSpec("b", null, List.of("t", "u"), genB >= 0 ? List.of(tp("t", 0)) : List.of(), genB, 3, null)));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("valid eager plan", group("range", -1),
                        Map.of("a", List.of(tp("t", 0)), "b", List.of(tp("t", 1), tp("u", 0))), ""),
                Arguments.of("partition twice", group("range", -1),
                        Map.of("a", List.of(tp("t", 0), tp("t", 1)), "b", List.of(tp("t", 1), tp("u", 0))), "assigned twice"),
                Arguments.of("to a non-subscriber", group("range", -1),
                        Map.of("a", List.of(tp("t", 0), tp("u", 0)), "b", List.of(tp("t", 1))), "does not subscribe"),
                Arguments.of("eager leaves one out", group("range", -1),
                        Map.of("a", List.of(tp("t", 0)), "b", List.of(tp("u", 0))), "t-1 is not assigned"),
                Arguments.of("member missing", group("range", -1),
                        Map.of("a", List.of(tp("t", 0), tp("t", 1), tp("u", 0))), "members in the plan"),
                Arguments.of("cooperative: to a new owner while the owner holds it", group("cooperative-sticky", -1),
                        Map.of("a", List.of(tp("t", 1)), "b", List.of(tp("t", 0), tp("u", 0))), "may still own it"),
                Arguments.of("cooperative: withheld while its owner revokes it", group("cooperative-sticky", -1),
                        Map.of("a", List.of(), "b", List.of(tp("t", 1), tp("u", 0))), ""),
                Arguments.of("cooperative: withheld with nobody holding it", group("cooperative-sticky", -1),
                        Map.of("a", List.of(tp("t", 0)), "b", List.of(tp("u", 0))), "nobody owns it"),
                Arguments.of("cooperative: the higher generation holds it", group("cooperative-sticky", 6),
                        Map.of("a", List.of(tp("t", 0), tp("t", 1)), "b", List.of(tp("u", 0))), "[b] may still own it"),
                Arguments.of("cooperative: a same-generation double claim holds both", group("cooperative-sticky", 5),
                        Map.of("a", List.of(tp("t", 0), tp("t", 1)), "b", List.of(tp("u", 0))), "[b] may still own it"),
                Arguments.of("cooperative: the stale claim does not hold it", group("cooperative-sticky", 4),
                        Map.of("a", List.of(tp("t", 0), tp("t", 1)), "b", List.of(tp("u", 0))), ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void violations(String name, Group g, Map<String, List<TopicPartition>> plan, String want) {
        List<String> got = Plans.violations(g, plan);
        if (want.isEmpty()) {
            assertEquals(List.of(), got);
        } else {
            assertTrue(got.stream().anyMatch(v -> v.contains(want)), () -> "want a violation containing '" + want + "', got " + got);
        }
    }

    @Test
    void qualityCountsMovesAndBalance() {
        Group g = group("sticky", -1);
        Map<TopicPartition, String> owners = Plans.validOwners(g);
        Plans.Quality kept = Plans.quality(g, Map.of("a", List.of(tp("t", 0)), "b", List.of(tp("t", 1), tp("u", 0))), owners);
        assertEquals(new Plans.Quality(1, true, 0, 0), kept);
        Plans.Quality moved = Plans.quality(g, Map.of("a", List.of(), "b", List.of(tp("t", 0), tp("t", 1), tp("u", 0))), owners);
        assertEquals(new Plans.Quality(3, false, 2, 1), moved);
    }

    @Test
    void shrinkerKeepsThePropertyAndRemovesTheRest() {
        Group big = RandomGroups.generate("sticky", 7);
        // Property: some member subscribes to the first topic. The smallest
        // such group has one member, one topic, one partition.
        String topic = big.topics().get(0).name();
        Group small = Shrinker.shrink(big.members().stream().anyMatch(m -> m.topics().contains(topic)) ? big
                : new Group(big.protocol(), big.topics(), List.of(big.members().get(0).withTopics(List.of(topic)))),
                h -> h.members().stream().anyMatch(m -> m.topics().contains(topic)) && h.topics().stream().anyMatch(t -> t.name().equals(topic)));
        assertEquals(1, small.members().size(), small::describe);
        assertEquals(1, small.topics().size(), small::describe);
        assertEquals(1, small.topics().get(0).partitions(), small::describe);
    }
}
