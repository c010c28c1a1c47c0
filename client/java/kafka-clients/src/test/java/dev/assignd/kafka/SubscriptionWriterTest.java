package dev.assignd.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The writer's bytes are kafka-clients' own, on random subscriptions. */
class SubscriptionWriterTest {
  @Test
  void writesWhatKafkaClientsWrites() {
    Random r = new Random(7);
    SubscriptionWriter w = new SubscriptionWriter();
    for (int i = 0; i < 500; i++) {
      List<String> topics = new ArrayList<>();
      List<TopicPartition> owned = new ArrayList<>();
      for (int t = r.nextInt(6); t > 0; t--) {
        String name = (r.nextBoolean() ? "t\u00e9-" : "t-") + r.nextInt(20);
        if (!topics.contains(name)) {
          topics.add(name);
        }
        for (int p = r.nextInt(4); p > 0; p--) {
          TopicPartition tp = new TopicPartition(name, r.nextInt(50));
          if (!owned.contains(tp)) {
            owned.add(tp);
          }
        }
      }
      Collections.shuffle(owned, r);
      byte[] ud = new byte[r.nextInt(10)];
      r.nextBytes(ud);
      ByteBuffer userData = r.nextInt(3) == 0 ? null : ByteBuffer.wrap(ud);
      Subscription s = new Subscription(topics, userData, owned, r.nextInt(3) == 0 ? -1 : r.nextInt(100),
          r.nextBoolean() ? Optional.empty() : Optional.of("rack-" + r.nextInt(3)));
      ByteBuffer want = ConsumerProtocol.serializeSubscription(s);
      byte[] wantBytes = new byte[want.remaining()];
      want.get(wantBytes);
      assertArrayEquals(wantBytes, w.write(s), s.toString());
      if (userData != null) {
        assertEquals(0, userData.position(), "the user data is left for the built-in assignor to read");
      }
    }
  }
}
