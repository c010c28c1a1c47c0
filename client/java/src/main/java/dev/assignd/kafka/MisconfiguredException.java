package dev.assignd.kafka;

/** A setting that keeps the leader from reaching assignd, naming the property at fault. */
final class MisconfiguredException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  final String property;

  MisconfiguredException(String property, String message) {
    this(property, message, null);
  }

  MisconfiguredException(String property, String message, Throwable cause) {
    super(property + " " + message, cause);
    this.property = property;
  }
}
