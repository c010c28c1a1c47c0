package dev.assignd.common;

/** A setting that keeps the client from making or using a channel to assignd, naming the property at fault. */
public final class Misconfigured extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String property;

  /** The message reads "property problem". */
  public Misconfigured(String property, String problem, Throwable cause) {
    super(property + " " + problem, cause);
    this.property = property;
  }

  /** The property (or properties, slash-separated) to check. */
  public String property() {
    return property;
  }
}
