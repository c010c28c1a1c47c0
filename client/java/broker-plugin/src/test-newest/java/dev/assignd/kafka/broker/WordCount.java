package dev.assignd.kafka.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.Stores;

/**
 * The Kafka Streams application the real-broker Streams tests run, on
 * {@code group.protocol=streams}: the words of input counted by value into
 * output. Counting by value repartitions: two subtopologies, one stateful
 * (its store in memory, changelogged).
 */
final class WordCount {
  private WordCount() {}

  /** Starts one instance of app, its state under stateDir; the caller closes it. */
  static KafkaStreams start(TestBroker broker, String app, Path stateDir, String input, String output, String store)
      throws IOException {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateDir).toString());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.String().getClass().getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.String().getClass().getName());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
    StreamsBuilder b = new StreamsBuilder();
    b.<String, String>stream(input)
        .groupBy((k, v) -> v)
        .count(Materialized.as(Stores.inMemoryKeyValueStore(store)))
        .toStream().mapValues(Object::toString).to(output);
    KafkaStreams s = new KafkaStreams(b.build(), p);
    s.start();
    return s;
  }
}
