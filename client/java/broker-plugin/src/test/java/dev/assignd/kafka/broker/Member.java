package dev.assignd.kafka.broker;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One Java consumer on the KIP-848 protocol (group.protocol=consumer) in a
 * thread of its own: it polls, records every value it consumed, and reports
 * its callbacks to the shared {@link Ownership}. Its assignment and member
 * id are published by the poll thread (the consumer itself is not for
 * other threads).
 */
final class Member implements AutoCloseable {
  final String name;
  private final Thread thread;
  private volatile boolean stop;
  private volatile Set<TopicPartition> owned = Set.of();
  private volatile String memberId = "";
  private volatile Throwable failure;
  private final CountDownLatch closed = new CountDownLatch(1);

  Member(String name, String bootstrap, String group, String remoteAssignor, String instanceId, List<String> topics,
      Ownership ownership, Set<String> consumed) {
    this(name, bootstrap, group, remoteAssignor, instanceId, topics, ownership, consumed, false);
  }

  /** A member on the classic protocol with Java's built-in cooperative-sticky assignor. */
  static Member classic(String name, String instanceId, String bootstrap, String group, List<String> topics, Ownership ownership,
      Set<String> consumed) {
    return new Member(name, bootstrap, group, null, instanceId, topics, ownership, consumed, true);
  }

  private Member(String name, String bootstrap, String group, String remoteAssignor, String instanceId, List<String> topics,
      Ownership ownership, Set<String> consumed, boolean classic) {
    this.name = name;
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    if (classic) {
      p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
      p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
      p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
      p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
    } else {
      p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
      p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, remoteAssignor);
    }
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "200");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
    p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "1000");
    if (instanceId != null) {
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
    }
    Set<TopicPartition> mine = ConcurrentHashMap.newKeySet();
    thread = new Thread(() -> {
      try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
        c.subscribe(topics, new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> ps) {
            mine.removeAll(ps);
            ownership.revoked(name, ps);
            owned = Set.copyOf(mine);
          }

          @Override
          public void onPartitionsLost(Collection<TopicPartition> ps) {
            onPartitionsRevoked(ps);
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> ps) {
            ownership.assigned(name, ps);
            mine.addAll(ps);
            owned = Set.copyOf(mine);
          }
        });
        while (!stop) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
            consumed.add(r.value());
          }
          memberId = c.groupMetadata().memberId();
        }
      } catch (Throwable t) {
        failure = t;
      } finally {
        closed.countDown();
      }
    }, "member-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  Set<TopicPartition> owned() {
    return new HashSet<>(owned);
  }

  String memberId() {
    return memberId;
  }

  Throwable failure() {
    return failure;
  }

  /** Leaves the group: close() on the poll thread (revocation callbacks, final commit). */
  @Override
  public void close() throws InterruptedException {
    stop = true;
    if (!closed.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " did not close");
    }
  }
}
