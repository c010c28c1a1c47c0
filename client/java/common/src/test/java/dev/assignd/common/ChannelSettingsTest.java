package dev.assignd.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ChannelSettingsTest {
  @Test
  void tlsIsImpliedByItsFiles() {
    assertFalse(ChannelSettings.from(Map.of(ChannelSettings.TARGET, "h:1"), "p").tls());
    assertTrue(ChannelSettings.from(Map.of(ChannelSettings.TLS_CA_FILE, "/ca.pem"), "p").tls());
    assertFalse(ChannelSettings.from(Map.of(ChannelSettings.TLS_CA_FILE, "/ca.pem", ChannelSettings.TLS_ENABLED, "false"), "p").tls());
  }

  @Test
  void badValuesNameTheProperty() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> ChannelSettings.from(Map.of(ChannelSettings.TLS_ENABLED, "yes"), "p"));
    assertTrue(e.getMessage().contains(ChannelSettings.TLS_ENABLED), e.getMessage());
    e = assertThrows(ConfigException.class, () -> ChannelSettings.from(Map.of(ChannelSettings.TLS_CERT_FILE, "/c.pem"), "p"));
    assertTrue(e.getMessage().contains(ChannelSettings.TLS_KEY_FILE), e.getMessage());
  }

  // The user agent carries the artifact's version, which the build filters in.
  @Test
  void userAgentCarriesTheVersion() {
    ChannelSettings s = ChannelSettings.from(Map.of(), "assignd-test");
    assertEquals("assignd-test/" + UserAgent.VERSION, s.userAgent());
    assertTrue(UserAgent.VERSION.matches("[0-9][^ ]*"), UserAgent.VERSION);
  }

  @Test
  void noTargetIsMisconfigured() {
    Misconfigured e = assertThrows(Misconfigured.class, () -> Channels.get(ChannelSettings.from(Map.of(), "p")));
    assertEquals(ChannelSettings.TARGET, e.property());
  }
}
