package org.sluice.fleet;

import org.sluice.core.Gcra;

/**
 * The fleet's limit arithmetic in Java: the same GCRA step as {@link Gcra} (in integer
 * microseconds, the unit Redis's {@code TIME} gives), applied to a tenant's hook bucket
 * and then its byte bucket. Its twin is the {@code gcra}/{@code charge} part of
 * {@code admit.lua}; the shared vectors in {@code gcra-vectors.csv} hold both to the
 * same answers.
 *
 * <p>Why microseconds: Lua numbers are doubles, exact for integers below 2^53. Redis
 * time in microseconds is about 2^51 today; every increment and tolerance is capped at
 * {@link #MAX_MICROS} (2^50 us, 35 years), so every sum the script forms stays exact.
 *
 * <p>A bucket with no stored time is full ({@link #ABSENT}). A bucket is written only
 * when it holds debt after the charge; otherwise it is removed (a full bucket and no
 * bucket are the same thing).
 */
public final class FleetGcra {

    /** Largest increment or tolerance accepted, in microseconds (2^50). */
    public static final long MAX_MICROS = 1L << 50;

    /** A bucket with no stored time (a full bucket). */
    public static final long ABSENT = Long.MIN_VALUE;

    /** Which bucket refused a charge. */
    public static final int SCOPE_NONE = 0;
    public static final int SCOPE_TENANT = 1;
    public static final int SCOPE_TENANT_BYTES = 2;

    private FleetGcra() {
    }

    /**
     * {@code round(units x 1e6 / perSecond)} microseconds, saturating at {@link
     * #MAX_MICROS}, at least 1 when {@code units > 0}. The edge computes a charge as
     * {@code (micros(1, rate), micros(burst, rate))} for hooks and {@code (micros(bytes,
     * bytes_per_second), micros(burst_bytes, bytes_per_second))} for bytes; computing the
     * byte charge from the byte count (not bytes x per-byte interval) keeps rates above
     * one byte per microsecond exact.
     */
    public static long micros(double units, double perSecond) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate must be a finite number greater than 0, got " + perSecond);
        }
        if (!(units >= 0) || Double.isInfinite(units)) {
            throw new IllegalArgumentException("units must be a finite number >= 0, got " + units);
        }
        if (units == 0) {
            return 0;
        }
        double us = units * 1e6 / perSecond;
        if (us >= MAX_MICROS) {
            return MAX_MICROS;
        }
        return Math.max(1L, Math.round(us));
    }

    /** One bucket's outcome: the wait (0 = admitted) and the stored time afterwards. */
    public record Step(long waitUs, long tatAfter) {
    }

    /** Both buckets' outcome. {@code scope} is {@link #SCOPE_NONE} when admitted. */
    public record Decision(int scope, long waitUs, long hookTatAfter, long byteTatAfter) {
        public boolean admitted() {
            return scope == SCOPE_NONE;
        }
    }

    /** One GCRA step on a bucket whose stored time is {@code tat} ({@link #ABSENT} = full). */
    public static Step step(long tat, long now, long inc, long tol) {
        long t = tat == ABSENT ? now : tat;
        long wait = Gcra.waitNanos(t, now, inc, tol); // unit-free arithmetic; microseconds here
        if (wait > 0) {
            return new Step(wait, tat);
        }
        long next = Gcra.admittedTat(t, now, inc, tol);
        return new Step(0, next - now > 0 ? next : ABSENT);
    }

    /**
     * The hook bucket, then the byte bucket; a tolerance of 0 means that limit is absent.
     * A refusal on bytes keeps the hook charge (as a single node does): the hook spent
     * its hook token.
     */
    public static Decision decide(long hookTat, long byteTat, long now,
                                  long hookInc, long hookTol, long byteInc, long byteTol) {
        long hookAfter = hookTat;
        if (hookTol > 0) {
            Step h = step(hookTat, now, hookInc, hookTol);
            if (h.waitUs() > 0) {
                return new Decision(SCOPE_TENANT, h.waitUs(), hookTat, byteTat);
            }
            hookAfter = h.tatAfter();
        }
        long byteAfter = byteTat;
        if (byteTol > 0) {
            Step b = step(byteTat, now, byteInc, byteTol);
            if (b.waitUs() > 0) {
                return new Decision(SCOPE_TENANT_BYTES, b.waitUs(), hookAfter, byteTat);
            }
            byteAfter = b.tatAfter();
        }
        return new Decision(SCOPE_NONE, 0, hookAfter, byteAfter);
    }

    /** Checks one (increment, tolerance) pair; the message names the argument and value. */
    static void checkPair(String name, long inc, long tol) {
        if (inc < 0 || inc > MAX_MICROS) {
            throw new IllegalArgumentException(name + "IncUs must be in [0, 2^50], got " + inc);
        }
        if (tol < 0 || tol > MAX_MICROS) {
            throw new IllegalArgumentException(name + "TolUs must be in [0, 2^50], got " + tol);
        }
    }
}
