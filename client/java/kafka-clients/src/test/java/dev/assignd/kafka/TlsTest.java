package dev.assignd.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.assignd.common.Channels;
import dev.assignd.testkit.AssigndProcess;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS and mTLS to a real assignd, with certificates made at test time: the
 * right CA serves, a wrong CA or a missing client certificate is a
 * misconfiguration (ERROR naming the properties) and falls back.
 */
class TlsTest {
  private static TestCerts certs;
  private static TestCerts other;
  private static AssigndProcess tls;
  private static AssigndProcess mtls;

  @BeforeAll
  static void start() throws Exception {
    certs = TestCerts.create();
    other = TestCerts.create();
    tls = AssigndProcess.start("--tls-cert=" + certs.serverCert, "--tls-key=" + certs.serverKey);
    mtls = AssigndProcess.start("--tls-cert=" + certs.serverCert, "--tls-key=" + certs.serverKey,
        "--tls-client-ca=" + certs.caCert);
  }

  @AfterAll
  static void stop() throws Exception {
    Channels.shutdownAll();
    tls.close();
    mtls.close();
  }

  @AfterEach
  void freshChannels() {
    Channels.shutdownAll();
  }

  private static AssigndStats assign(Map<String, Object> props) {
    props.putIfAbsent(AssigndConfig.DEADLINE_MS, "10000");
    ConsumerPartitionAssignor a = Groups.configured(AssigndRangeAssignor::new, props);
    a.assign(Groups.cluster(), new GroupSubscription(Groups.members(a, false)));
    return AssigndAssignorTest.statsOf(a);
  }

  @Test
  void tlsWithTheRightCa() {
    Map<String, Object> p = new HashMap<>();
    p.put(AssigndConfig.TARGET, tls.target());
    p.put(AssigndConfig.TLS_CA_FILE, certs.caCert.toString());
    AssigndStats s = assign(p);
    assertEquals(1, s.getServed(), s.toString());
  }

  @Test
  void tlsWithAServerNameOverride() {
    Map<String, Object> p = new HashMap<>();
    p.put(AssigndConfig.TARGET, "127.0.0.1:" + tls.target().replaceAll(".*:", ""));
    p.put(AssigndConfig.TLS_CA_FILE, certs.caCert.toString());
    p.put(AssigndConfig.TLS_SERVER_NAME, "assignd.test");
    AssigndStats s = assign(p);
    assertEquals(1, s.getServed(), s.toString());
  }

  @Test
  void tlsWithTheWrongCaIsAMisconfiguration() {
    Map<String, Object> p = new HashMap<>();
    p.put(AssigndConfig.TARGET, tls.target());
    p.put(AssigndConfig.TLS_CA_FILE, other.caCert.toString());
    try (LogCapture log = new LogCapture()) {
      AssigndStats s = assign(p);
      assertEquals(1, s.getMisconfigurations(), s.toString());
      assertTrue(log.text().contains("ERROR") && log.text().contains(AssigndConfig.TLS_CA_FILE), log.text());
    }
  }

  @Test
  void plaintextToATlsServerFallsBack() {
    Map<String, Object> p = new HashMap<>();
    p.put(AssigndConfig.TARGET, tls.target());
    p.put(AssigndConfig.DEADLINE_MS, "3000");
    AssigndStats s = assign(p);
    assertEquals(1, s.getFallbacks(), s.toString());
  }

  @Test
  void unreadableCaFileIsAMisconfiguration() {
    Map<String, Object> p = new HashMap<>();
    p.put(AssigndConfig.TARGET, tls.target());
    p.put(AssigndConfig.TLS_CA_FILE, certs.dir.resolve("no-such-ca.pem").toString());
    try (LogCapture log = new LogCapture()) {
      AssigndStats s = assign(p);
      assertEquals(1, s.getMisconfigurations(), s.toString());
      assertTrue(log.text().contains("ERROR") && log.text().contains(AssigndConfig.TLS_CA_FILE), log.text());
    }
  }

  @Test
  void mtlsWithAClientCertificate() {
    Map<String, Object> p = new HashMap<>();
    p.put(AssigndConfig.TARGET, mtls.target());
    p.put(AssigndConfig.TLS_CA_FILE, certs.caCert.toString());
    p.put(AssigndConfig.TLS_CERT_FILE, certs.clientCert.toString());
    p.put(AssigndConfig.TLS_KEY_FILE, certs.clientKey.toString());
    AssigndStats s = assign(p);
    assertEquals(1, s.getServed(), s.toString());
  }

  @Test
  void mtlsWithoutAClientCertificateIsAMisconfiguration() {
    Map<String, Object> p = new HashMap<>();
    p.put(AssigndConfig.TARGET, mtls.target());
    p.put(AssigndConfig.TLS_CA_FILE, certs.caCert.toString());
    try (LogCapture log = new LogCapture()) {
      AssigndStats s = assign(p);
      assertEquals(1, s.getMisconfigurations(), s.toString());
      assertEquals(0, s.getServed());
      assertTrue(log.text().contains("ERROR") && log.text().contains(AssigndConfig.TLS_CERT_FILE), log.text());
    }
  }
}
