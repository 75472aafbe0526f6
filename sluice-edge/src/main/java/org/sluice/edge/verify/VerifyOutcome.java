package org.sluice.edge.verify;

/** The result of verifying one request. Everything but {@link #OK} is a 401. */
public enum VerifyOutcome {
    OK(null),
    MISSING_SIGNATURE("missing_signature"),
    MALFORMED_SIGNATURE("malformed_signature"),
    NO_MATCH("no_match"),
    TIMESTAMP_OUT_OF_TOLERANCE("timestamp_out_of_tolerance");

    private final String reason;

    VerifyOutcome(String reason) {
        this.reason = reason;
    }

    /** The {@code reason} field of the 401 body; null for {@link #OK}. */
    public String reason() {
        return reason;
    }
}
