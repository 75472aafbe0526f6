package org.sluice.edge.config;

import java.util.List;

/**
 * A configuration that cannot be used. Carries every problem found, each a message that
 * starts with the key path and ends with the offending value, e.g.
 * {@code rate_limits.tenants.acme.burst must be an integer of at least 1, got 0}.
 * Secrets are never part of a message.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> errors;

    public ConfigException(List<String> errors) {
        super(render(errors));
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one error");
        }
        this.errors = List.copyOf(errors);
    }

    public ConfigException(String error) {
        this(List.of(error));
    }

    /** Every problem, in the order the file was read. */
    public List<String> errors() {
        return errors;
    }

    private static String render(List<String> errors) {
        if (errors.size() == 1) {
            return errors.get(0);
        }
        StringBuilder s = new StringBuilder().append(errors.size()).append(" configuration errors:");
        for (String e : errors) {
            s.append("\n  ").append(e);
        }
        return s.toString();
    }
}
