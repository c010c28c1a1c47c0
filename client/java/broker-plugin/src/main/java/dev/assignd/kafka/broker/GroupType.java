package dev.assignd.kafka.broker;

/**
 * The kinds of group the broker asks an assignor for: consumer groups
 * (KIP-848), Streams groups (KIP-1071) and share groups (KIP-932). Each
 * kind has its own assignor interface in the broker, so each has its own
 * plugin class and its own MBean type.
 */
public enum GroupType {
  /** A consumer group: {@code group.consumer.assignors}. */
  CONSUMER("AssigndAssignor"),
  /** A Streams group: {@code group.streams.assignors}. */
  STREAMS("AssigndTaskAssignor"),
  /** A share group: {@code group.share.assignors}. */
  SHARE("AssigndShareAssignor");

  private final String mbeanType;

  GroupType(String mbeanType) {
    this.mbeanType = mbeanType;
  }

  /** The {@code type} key of this kind's MBeans. */
  String mbeanType() {
    return mbeanType;
  }
}
