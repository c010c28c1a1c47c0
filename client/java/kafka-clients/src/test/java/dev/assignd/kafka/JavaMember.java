package dev.assignd.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One Java consumer (kafka-clients, classic protocol) on its own thread:
 * polls, records what it consumes, commits after each batch and before
 * giving partitions up, and writes its rebalance callbacks to the timeline.
 */
final class JavaMember implements AutoCloseable {
  final String name;
  private final Timeline timeline;
  private final Thread thread;
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile boolean stop;
  private volatile Throwable failure;

  JavaMember(String name, Map<String, Object> props, String topic, Timeline timeline) {
    this.name = name;
    this.timeline = timeline;
    Map<String, Object> p = new HashMap<>(props);
    p.put("client.id", name);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("heartbeat.interval.ms", "500");
    p.put("session.timeout.ms", "10000");
    p.put("max.poll.records", "200");
    thread = new Thread(() -> run(p, topic), "member-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run(Map<String, Object> props, String topic) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props)) {
      c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> parts) {
          if (!parts.isEmpty()) {
            commit(c);
          }
          timeline.revoked(name, parts, "revoked");
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
          timeline.assigned(name, parts);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> parts) {
          timeline.revoked(name, parts, "lost");
        }
      });
      while (!stop) {
        ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> r : recs) {
          timeline.consumed(r.topic(), r.partition(), r.offset());
        }
        if (!recs.isEmpty()) {
          commit(c);
        }
      }
      commit(c);
    } catch (Throwable t) {
      failure = t;
    } finally {
      timeline.stopped(name);
      done.countDown();
    }
  }

  private static void commit(KafkaConsumer<byte[], byte[]> c) {
    try {
      c.commitSync(Duration.ofSeconds(5));
    } catch (KafkaException e) {
      // A rebalance in progress: the records are consumed again by their next owner (never lost).
    }
  }

  Throwable failure() {
    return failure;
  }

  /** Closes the consumer (a dynamic member leaves the group; a static one does not). */
  @Override
  public void close() throws InterruptedException {
    stop = true;
    if (!done.await(60, TimeUnit.SECONDS)) {
      thread.interrupt();
      throw new IllegalStateException(name + " did not close within 60 s");
    }
  }
}
