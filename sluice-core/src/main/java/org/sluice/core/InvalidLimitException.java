package org.sluice.core;

/**
 * A limit that cannot be built: a missing, unknown or out-of-range field. The message
 * names the field and the offending value, e.g. {@code burst must be an integer of at
 * least 1, got 0}.
 *
 * <p>A config loader that knows where the limit sits (a key path such as {@code
 * rate_limits.tenants.acme}) renders the same problem at that path with {@link
 * #messageAt(String)}: {@code rate_limits.tenants.acme.burst must be an integer of at
 * least 1, got 0}.
 */
public final class InvalidLimitException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;
    private final boolean unknownField;

    private InvalidLimitException(String field, String message, boolean unknownField) {
        super(message);
        this.field = field;
        this.unknownField = unknownField;
    }

    /** A problem with a known field; {@code message} must start with {@code field}. */
    static InvalidLimitException of(String field, String message) {
        return new InvalidLimitException(field, message, false);
    }

    /** {@code unknown field "<name>"}. */
    static InvalidLimitException unknownField(String name) {
        return new InvalidLimitException(name, "unknown field \"" + name + "\"", true);
    }

    /**
     * The field the problem is about, in snake_case as it appears in the attrs ({@code
     * rate}, {@code burst}, {@code burst_bytes}, ...); for an unknown field, the unknown
     * key itself.
     */
    public String field() {
        return field;
    }

    /** True when the problem is a key that is not a limit field at all. */
    public boolean isUnknownField() {
        return unknownField;
    }

    /**
     * The message with the field placed under {@code path} (no trailing dot):
     * {@code <path>.burst must be ...}, or {@code unknown field "<path>.<name>"}. An
     * empty or null path gives {@link #getMessage()} unchanged.
     */
    public String messageAt(String path) {
        if (path == null || path.isEmpty()) {
            return getMessage();
        }
        if (unknownField) {
            return "unknown field \"" + path + "." + field + "\"";
        }
        return path + "." + getMessage();
    }
}
