package org.sluice.fleet;

import org.sluice.core.Limit;

/**
 * The four numbers {@link FleetClient#admit} carries for one hook, computed on this node
 * from the tenant's effective {@link Limit}: the hook charge and the byte charge as
 * (increment, tolerance) pairs in integer microseconds. A tolerance of 0 means that
 * bucket does not exist (no byte limit).
 */
public record FleetCharges(long hookIncUs, long hookTolUs, long byteIncUs, long byteTolUs) {

    /** No limit at all: nothing to charge. */
    public static final FleetCharges NONE = new FleetCharges(0, 0, 0, 0);

    /** The charges of one hook of {@code bodyBytes} bytes under {@code limit}. */
    public static FleetCharges of(Limit limit, long bodyBytes) {
        if (bodyBytes < 0) {
            throw new IllegalArgumentException("bodyBytes must be >= 0, got " + bodyBytes);
        }
        long hookInc = FleetGcra.micros(1, limit.rate());
        long hookTol = FleetGcra.micros(limit.burst(), limit.rate());
        if (!limit.hasByteBucket()) {
            return new FleetCharges(hookInc, hookTol, 0, 0);
        }
        double bps = limit.bytesPerSecond().getAsDouble();
        return new FleetCharges(hookInc, hookTol,
                FleetGcra.micros(bodyBytes, bps), Math.max(1L, FleetGcra.micros(limit.effectiveBurstBytes(), bps)));
    }
}
