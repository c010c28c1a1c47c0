/**
 * assignd inside the broker: a KIP-848 server-side assignor
 * ({@link org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor})
 * that asks assignd for each consumer group's target assignment and falls
 * back to the broker's built-in assignor in-process. Start at
 * {@link dev.assignd.kafka.broker.AssigndAssignor}.
 */
package dev.assignd.kafka.broker;
