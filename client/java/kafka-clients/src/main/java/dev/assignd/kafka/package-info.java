/**
 * kafka-clients assignors backed by assignd: {@link dev.assignd.kafka.AssigndCooperativeStickyAssignor},
 * {@link dev.assignd.kafka.AssigndStickyAssignor}, {@link dev.assignd.kafka.AssigndRangeAssignor} and
 * {@link dev.assignd.kafka.AssigndRoundRobinAssignor}. Each is Java's built-in assignor of the same
 * name except for the assignment itself, which a leader asks assignd for and, if assignd fails,
 * computes with the built-in one. Settings: {@link dev.assignd.kafka.AssigndConfig}.
 */
package dev.assignd.kafka;
