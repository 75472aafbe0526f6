package org.sluice.edge.admission;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.core.TenantDecision;
import org.sluice.shm.SharedArena;
import org.sluice.shm.SharedGcraTable;

/**
 * The host arena of {@code rate_limits.scope: host} ({@code rate_limits.host_arena}, by
 * default {@code /dev/shm/sluice-<node.id>}): three GCRA tables every Sluice process on the
 * host maps, created by the first process and attached by the others (the arena file and
 * its buckets outlive any one process, so a restarted process finds its debt).
 * <ul>
 *   <li>{@code edge-ip}: one bucket per client address (IPv4, or IPv6 /64);</li>
 *   <li>{@code edge-node}: the node bucket and one byte bucket per source;</li>
 *   <li>{@code edge-tenant}: each tenant's hook bucket ({@code h/<tenant>}) and byte bucket
 *       ({@code b/<tenant>}), charged with the tenant's effective limit on each call.</li>
 * </ul>
 * Bucket times are {@link System#nanoTime()} (CLOCK_MONOTONIC, shared by the host's
 * processes). Queue shares are not here: they count what each process holds.
 */
public final class HostArena implements AutoCloseable {

    /** Arena size: room for the three tables with headroom (the pages are touched only as used). */
    static final long SIZE_BYTES = 16L << 20;
    static final int ADDRESS_SLOTS = 1 << 16;
    static final int NODE_SLOTS = 1 << 10;
    static final int TENANT_SLOTS = 1 << 16;

    private final SharedArena arena;
    private final SharedGcraTable addresses;
    private final SharedGcraTable preRead;
    private final SharedGcraTable tenants;
    private final Clock clock;

    private HostArena(SharedArena arena, Clock clock) {
        this.arena = arena;
        this.clock = clock;
        this.addresses = arena.gcraTable("edge-ip", ADDRESS_SLOTS);
        this.preRead = arena.gcraTable("edge-node", NODE_SLOTS);
        this.tenants = arena.gcraTable("edge-tenant", TENANT_SLOTS);
    }

    /**
     * Creates the arena at {@code file}, or attaches to the one another process made:
     * owner-only (0600), or shared with {@code group} (0660; null: none). A file another
     * user could have planted or can read is refused (see {@code SharedArena.attach}).
     */
    public static HostArena open(Path file, String group, Clock clock) {
        SharedArena arena;
        try {
            arena = SharedArena.create(file, SIZE_BYTES, group);
        } catch (RuntimeException e) {
            throw new IllegalStateException("rate_limits.host_arena " + file
                    + (group == null ? "" : " (rate_limits.host_arena_group " + group + ")")
                    + " cannot be opened: " + e.getMessage(), e);
        }
        try {
            return new HostArena(arena, clock);
        } catch (RuntimeException e) {
            arena.close();
            throw new IllegalStateException("rate_limits.host_arena " + file + " cannot hold Sluice's tables: "
                    + e.getMessage(), e);
        }
    }

    SharedGcraTable addresses() {
        return addresses;
    }

    SharedGcraTable preRead() {
        return preRead;
    }

    /** Charges one hook of {@code bytes} to {@code tenant} under {@code limit} (null: unlimited), as {@code TenantLimits.hit} does. */
    TenantDecision hitTenant(String tenant, long bytes, Limit limit) {
        if (limit == null) {
            return TenantDecision.ADMITTED;
        }
        long now = clock.nanoTime();
        long wait = tenants.tryCharge(hookKey(tenant), limit.intervalNanos(), limit.toleranceNanos(), now);
        if (wait != 0) {
            return TenantDecision.refused(TenantDecision.Scope.TENANT, wait);
        }
        if (bytes > 0 && limit.hasByteBucket()) {
            wait = tenants.tryCharge(byteKey(tenant), limit.byteIncrementNanos(bytes), limit.byteToleranceNanos(), now);
            if (wait != 0) {
                return TenantDecision.refused(TenantDecision.Scope.TENANT_BYTES, wait);
            }
        }
        return TenantDecision.ADMITTED;
    }

    /**
     * Hooks {@code tenant} could send now under {@code limit} (for the {@code RateLimit}
     * header), charging nothing: the largest {@code k <= burst} whose charge of {@code k}
     * hooks at once the shared bucket would admit, found by binary search over read-only
     * peeks.
     */
    double remainingHooks(String tenant, Limit limit) {
        byte[] key = hookKey(tenant);
        long now = clock.nanoTime();
        long interval = limit.intervalNanos();
        long tolerance = limit.toleranceNanos();
        long lo = 0;
        long hi = Math.min(limit.burst(), tolerance / interval);
        while (lo < hi) {
            long mid = (lo + hi + 1) >>> 1;
            if (tenants.waitNanos(key, mid * interval, tolerance, now) == 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Empties {@code tenant}'s host buckets (after an override change), for every process. */
    public void resetTenant(String tenant) {
        tenants.forget(hookKey(tenant));
        tenants.forget(byteKey(tenant));
    }

    private static byte[] hookKey(String tenant) {
        return ("h/" + tenant).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] byteKey(String tenant) {
        return ("b/" + tenant).getBytes(StandardCharsets.UTF_8);
    }

    /** For {@code GET /v1/admission}: the arena and each table's shared counters. */
    public Map<String, Object> stats() {
        long now = clock.nanoTime();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("file", arena.file().toString());
        out.put("size_bytes", arena.sizeBytes());
        out.put("free_bytes", arena.freeBytes());
        Map<String, Object> tables = new LinkedHashMap<>();
        for (SharedGcraTable t : new SharedGcraTable[] {addresses, preRead, tenants}) {
            SharedGcraTable.Stats s = t.stats(now);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("slots", s.slots());
            row.put("keys", s.keys());
            row.put("allowed", s.allowed());
            row.put("denied", s.denied());
            row.put("evicted", s.evicted());
            row.put("contended", s.contended());
            tables.put(t.name(), row);
        }
        out.put("tables", tables);
        return out;
    }

    @Override
    public void close() {
        arena.close();
    }
}
