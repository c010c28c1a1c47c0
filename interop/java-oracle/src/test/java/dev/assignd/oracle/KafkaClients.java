package dev.assignd.oracle;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;

/** The kafka-clients release on the class path, for the reports' headers. */
final class KafkaClients {
    private KafkaClients() {
    }

    /**
     * The version kafka-clients records in its jar
     * (kafka/kafka-version.properties), read directly: the class that
     * exposes it, AppInfoParser, moved to an internals package in 4.4.0.
     */
    static String version() {
        try (InputStream in = ConsumerPartitionAssignor.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }
}
