package org.sluice.edge.delivery;

import java.util.List;

/**
 * Settings of a destination that cannot be used. Carries every problem found, each a
 * message that starts with the key path and ends with the offending value (secrets and
 * configured header values are described, never printed). The config loader turns these
 * into its own {@code ConfigException}, so this package does not depend on the loader.
 */
public final class SettingsException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final List<String> errors;

    public SettingsException(List<String> errors) {
        super(String.join("; ", errors));
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("a SettingsException needs at least one error");
        }
        this.errors = List.copyOf(errors);
    }

    public SettingsException(String error) {
        this(List.of(error));
    }

    /** Every problem, in the order found. */
    public List<String> errors() {
        return errors;
    }
}
