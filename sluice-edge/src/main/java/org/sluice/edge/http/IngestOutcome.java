package org.sluice.edge.http;

import java.util.Locale;

/**
 * The fixed set of values of the {@code outcome} label of {@code sluice_ingest_requests_total}.
 * Never a value from a request, so a flood cannot mint series.
 */
enum IngestOutcome {
    ACCEPTED, DUPLICATE, RATE_LIMITED, TENANT_OVERLOAD, OVERLOAD, STORE_UNAVAILABLE, VERIFICATION_FAILED,
    PAYLOAD_TOO_LARGE, BAD_REQUEST, NOT_FOUND, TIMEOUT, PROBE, DEDUPE_PENDING, STORE_FULL;

    final String label = name().toLowerCase(Locale.ROOT);
}
