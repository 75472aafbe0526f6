package org.sluice.core;

/**
 * What a live limit change does with the state of the buckets it changes ({@link
 * Limiter#replaceBandwidths}, {@link KeyedLimit#replaceBandwidths} in every scope). Bandwidths are
 * matched by position: the new limit's first bandwidth takes over the old first one's
 * state, and so on; a bandwidth the old limit did not have starts full.
 *
 * <p>In every case the state is taken at one reading of the clock and the permits kept
 * are rounded down and capped at the new burst, so a change never admits more than
 * either limit's bucket held at that reading. Time owed by {@code reserve} beyond the
 * old burst stays owed, except under {@link #RESET}.
 */
public enum LimitChange {
    /** Every bucket starts full under the new limit, as if it had never been charged. */
    RESET,
    /**
     * Each bucket keeps the permits it had left (whole and fractional), capped at the new
     * burst: 7 left of a burst of 10 are 7 left of a burst of 20, or 5 of a burst of 5.
     */
    KEEP_REMAINING,
    /**
     * Each bucket keeps the share of its burst it had left: 7 left of a burst of 10 are 14
     * left of a burst of 20, or 3.5 (3 whole) of a burst of 5.
     */
    PROPORTIONAL
}
