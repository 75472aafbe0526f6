package org.sluice.fleet;

/**
 * The two things the fleet store decides, each of which falls back to this node on its
 * own: the label of {@code sluice_fleet_fallback_total{kind}} and
 * {@code sluice_fleet_limiter_degraded{kind}}.
 */
public enum FleetKind {
    /** The tenant's hook and byte buckets ({@code rate_limits.scope: fleet}). */
    RATE_LIMIT("rate_limit"),
    /** The dedupe claim ({@code dedupe.scope: fleet}). */
    DEDUPE("dedupe");

    private final String label;

    FleetKind(String label) {
        this.label = label;
    }

    /** The metric label value: {@code rate_limit} or {@code dedupe}. */
    public String label() {
        return label;
    }
}
