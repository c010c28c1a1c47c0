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

  /** The shim's properties: pairs of a setting and its value. */
  private static Map<String, Object> props(String... kv) {
    Map<String, Object> p = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return p;
  }

  /** One balance with props is a misconfiguration, logged as an ERROR naming the setting at fault. */
  private static AssigndStats assertMisconfigured(Map<String, Object> props, String setting) {
    try (LogCapture log = new LogCapture()) {
      AssigndStats s = assign(props);
      assertEquals(1, s.getMisconfigurations(), s.toString());
      assertTrue(log.text().contains("ERROR") && log.text().contains(setting), log.text());
      return s;
    }
  }

  @Test
  void tlsWithTheRightCa() {
    AssigndStats s = assign(props(AssigndConfig.TARGET, tls.target(), AssigndConfig.TLS_CA_FILE, certs.caCert.toString()));
    assertEquals(1, s.getServed(), s.toString());
  }

  @Test
  void tlsWithAServerNameOverride() {
    AssigndStats s = assign(props(AssigndConfig.TARGET, "127.0.0.1:" + tls.target().replaceAll(".*:", ""),
        AssigndConfig.TLS_CA_FILE, certs.caCert.toString(), AssigndConfig.TLS_SERVER_NAME, "assignd.test"));
    assertEquals(1, s.getServed(), s.toString());
  }

  @Test
  void tlsWithTheWrongCaIsAMisconfiguration() {
    assertMisconfigured(props(AssigndConfig.TARGET, tls.target(), AssigndConfig.TLS_CA_FILE, other.caCert.toString()),
        AssigndConfig.TLS_CA_FILE);
  }

  @Test
  void plaintextToATlsServerFallsBack() {
    AssigndStats s = assign(props(AssigndConfig.TARGET, tls.target(), AssigndConfig.DEADLINE_MS, "3000"));
    assertEquals(1, s.getFallbacks(), s.toString());
  }

  @Test
  void unreadableCaFileIsAMisconfiguration() {
    assertMisconfigured(props(AssigndConfig.TARGET, tls.target(),
        AssigndConfig.TLS_CA_FILE, certs.dir.resolve("no-such-ca.pem").toString()), AssigndConfig.TLS_CA_FILE);
  }

  @Test
  void mtlsWithAClientCertificate() {
    AssigndStats s = assign(props(AssigndConfig.TARGET, mtls.target(), AssigndConfig.TLS_CA_FILE, certs.caCert.toString(),
        AssigndConfig.TLS_CERT_FILE, certs.clientCert.toString(), AssigndConfig.TLS_KEY_FILE, certs.clientKey.toString()));
    assertEquals(1, s.getServed(), s.toString());
  }

  @Test
  void mtlsWithoutAClientCertificateIsAMisconfiguration() {
    AssigndStats s = assertMisconfigured(props(AssigndConfig.TARGET, mtls.target(), AssigndConfig.TLS_CA_FILE, certs.caCert.toString()),
        AssigndConfig.TLS_CERT_FILE);
    assertEquals(0, s.getServed());
  }
}
