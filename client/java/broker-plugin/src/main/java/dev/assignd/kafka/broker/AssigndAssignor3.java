package dev.assignd.kafka.broker;

/**
 * {@link AssigndAssignor} in slot 3: settings under
 * {@code assignd.assignor.3.}, default name {@code assignd-3}. The
 * coordinator makes one object per class it lists, so each further
 * instance needs a class of its own.
 */
public class AssigndAssignor3 extends AssigndAssignor {
  /** Slot 3. */
  public AssigndAssignor3() {
    super(3);
  }
}
