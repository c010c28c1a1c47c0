package dev.assignd.kafka.broker;

/**
 * {@link AssigndAssignor} in slot 2: settings under
 * {@code assignd.assignor.2.}, default name {@code assignd-2}. The
 * coordinator makes one object per class it lists, so each further
 * instance needs a class of its own.
 */
public class AssigndAssignor2 extends AssigndAssignor {
  /** Slot 2. */
  public AssigndAssignor2() {
    super(2);
  }
}
