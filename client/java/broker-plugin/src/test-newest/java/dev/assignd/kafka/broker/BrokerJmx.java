package dev.assignd.kafka.broker;

import com.sun.tools.attach.VirtualMachine;
import java.nio.file.Path;
import java.util.Optional;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The test broker's MBeans, read as an operator's JMX console reads them:
 * the broker's JVM is found by its server.properties on the command line,
 * and its local management agent started through the attach API (the
 * test broker opens no JMX port).
 */
final class BrokerJmx implements AutoCloseable {
  private final JMXConnector connector;
  private final MBeanServerConnection server;

  private BrokerJmx(JMXConnector connector) throws java.io.IOException {
    this.connector = connector;
    this.server = connector.getMBeanServerConnection();
  }

  /** Connects to the JVM of the broker whose directory is dir. */
  static BrokerJmx attach(Path dir) throws Exception {
    String props = dir.resolve("broker").resolve("server.properties").toString();
    Optional<ProcessHandle> jvm = ProcessHandle.allProcesses()
        .filter(p -> p.info().arguments().map(a -> java.util.Arrays.asList(a).contains(props)).orElse(false))
        .findFirst();
    if (jvm.isEmpty()) {
      throw new IllegalStateException("no JVM runs with " + props);
    }
    VirtualMachine vm = VirtualMachine.attach(Long.toString(jvm.get().pid()));
    try {
      String url = vm.startLocalManagementAgent();
      return new BrokerJmx(JMXConnectorFactory.connect(new JMXServiceURL(url)));
    } finally {
      vm.detach();
    }
  }

  /** An attribute of the task assignor instance's stats (PluginStats, type AssigndTaskAssignor). */
  Object taskAssignorStat(String instance, String attribute) throws Exception {
    return server.getAttribute(new ObjectName(PluginStats.objectName(GroupType.STREAMS, instance)), attribute);
  }

  /** An attribute of a plugin instance's stats of any group type (PluginStats, type by {@link GroupType#mbeanType()}). */
  Object stat(GroupType type, String instance, String attribute) throws Exception {
    return server.getAttribute(new ObjectName(PluginStats.objectName(type, instance)), attribute);
  }

  @Override
  public void close() throws java.io.IOException {
    connector.close();
  }
}
