package org.sluice.edge.verify;

import java.util.Locale;

/** The result of verifying one request. Everything but {@link #OK} is a 401. */
public enum VerifyOutcome {
    OK,
    MISSING_SIGNATURE,
    MALFORMED_SIGNATURE,
    NO_MATCH,
    TIMESTAMP_OUT_OF_TOLERANCE;

    private final String reason = name().toLowerCase(Locale.ROOT);

    /** The {@code reason} field of the 401 body (the constant's name in lower case); null for {@link #OK}. */
    public String reason() {
        return this == OK ? null : reason;
    }
}
