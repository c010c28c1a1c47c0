package dev.assignd.kafka.broker;

/**
 * {@link AssigndAssignor} in slot 4: settings under
 * {@code assignd.assignor.4.}, default name {@code assignd-4}. The
 * coordinator makes one object per class it lists, so each further
 * instance needs a class of its own.
 */
public class AssigndAssignor4 extends AssigndAssignor {
  /** Slot 4. */
  public AssigndAssignor4() {
    super(4);
  }
}
