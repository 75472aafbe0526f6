package org.sluice.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-tenant queue shares: how many hooks and body bytes each tenant holds in flight
 * (buffered in a batcher, not yet answered), against its limit's {@code max_queue} and
 * {@code max_queue_bytes}. Past either, the hook is refused ({@code 429
 * tenant_overload}) so one tenant filling its share cannot starve the rest.
 *
 * <h2>Algorithm: charge, compare, undo</h2>
 * A tenant's entry holds two {@link AtomicLong} counters, {@code hooks} and {@code
 * bytes}. {@link #acquire} adds first and compares after: {@code h = hooks + 1}, then
 * {@code b = bytes + n}; admitted iff {@code h <= max_queue} and {@code b <=
 * max_queue_bytes} (or the hook is alone: {@code h == 1 && b == n}, which admits one
 * oversize hook when the tenant holds nothing else). A refusal subtracts what it added,
 * so nothing is counted. Because every admitted hook is counted before it compares, a
 * hook is only admitted when the counted total, itself at least the admitted total,
 * is within the cap: the cap is never exceeded, except by one lone oversize hook. A
 * racing refusal's transient count can make another acquire refuse too (conservative,
 * never permissive).
 *
 * <h2>Entry life cycle</h2>
 * An entry exists only while its tenant holds something, so the map is bounded by the
 * batchers' own caps. States of {@code hooks}: {@code >= 1} held; {@code 0} idle, about
 * to be retired; {@code DEAD} (a large negative value) retired, never used again. The
 * thread that brings {@code hooks} to 0 (a release or an undo) tries {@code CAS(0,
 * DEAD)} and on success removes the entry from the map. An acquire that finds a DEAD
 * entry (its increment leaves {@code hooks} negative) helps remove it and retries with
 * a fresh one. Ordering: acquire increments {@code hooks} before {@code bytes}; release
 * and undo decrement {@code bytes} before {@code hooks}; so when {@code hooks} is 0,
 * {@code bytes} is 0 too, and a retired entry carries nothing. All counter operations
 * are volatile read-modify-writes.
 *
 * <p>A lease remembers its entry object, not the tenant name, so a release always
 * gives back to the counters it took from. Releasing a lease twice is a no-op.
 */
public final class QueueShares {

    /** Retry hint when no figure is configured: 1000 ms. */
    public static final long DEFAULT_RETRY_AFTER_MILLIS = 1_000L;

    private static final long DEAD = Long.MIN_VALUE / 2;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final Decision refused;

    /** Refusals hint {@value #DEFAULT_RETRY_AFTER_MILLIS} ms. */
    public QueueShares() {
        this(DEFAULT_RETRY_AFTER_MILLIS);
    }

    /**
     * @param retryAfterMillis the hint a refusal carries (&gt;= 1). In-flight hooks leave
     *     when the batcher answers, which no counter can predict, so it is a fixed figure.
     */
    public QueueShares(long retryAfterMillis) {
        if (retryAfterMillis < 1) {
            throw new IllegalArgumentException("retryAfterMillis must be at least 1, got " + retryAfterMillis);
        }
        this.refused = new Decision(null, retryAfterMillis);
    }

    // ------------------------------------------------------------------ values

    /** What {@link #acquire} decided. Refusals and uncounted admissions are shared constants. */
    public static final class Decision {

        /** Admitted, nothing counted: the limit sets no queue caps (or there is no limit). */
        public static final Decision UNCOUNTED = new Decision(null, 0L);

        private final Lease lease;
        private final long retryAfterMillis;

        private Decision(Lease lease, long retryAfterMillis) {
            this.lease = lease;
            this.retryAfterMillis = retryAfterMillis;
        }

        public boolean admitted() {
            return retryAfterMillis == 0;
        }

        /** What to hand to {@link #release} once the batcher has answered; null when nothing was counted. */
        public Lease lease() {
            return lease;
        }

        /** For a refusal, how long the client should wait in milliseconds (&gt;= 1); 0 when admitted. */
        public long retryAfterMillis() {
            return retryAfterMillis;
        }

        @Override
        public String toString() {
            return admitted() ? "admitted(" + lease + ")" : "refused(retry after " + retryAfterMillis + " ms)";
        }
    }

    /** One hook's share: its tenant's counters and its byte count. Release it once. */
    public static final class Lease {

        private final Entry entry;
        private final long bytes;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(Entry entry, long bytes) {
            this.entry = entry;
            this.bytes = bytes;
        }

        public String tenant() {
            return entry.tenant;
        }

        public long bytes() {
            return bytes;
        }

        @Override
        public String toString() {
            return "Lease{" + entry.tenant + ", " + bytes + " bytes}";
        }
    }

    private static final class Entry {
        final String tenant;
        final AtomicLong hooks = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();

        Entry(String tenant) {
            this.tenant = tenant;
        }
    }

    // ------------------------------------------------------------------ operations

    /**
     * Counts one hook of {@code bytes} body bytes against {@code tenant}'s share under
     * {@code limit}. Admitted with a lease, admitted uncounted ({@link
     * Decision#UNCOUNTED}) when {@code limit} is null or sets neither {@code max_queue}
     * nor {@code max_queue_bytes}, or refused with a retry hint and nothing counted.
     */
    public Decision acquire(String tenant, long bytes, Limit limit) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be at least 0, got " + bytes);
        }
        if (limit == null || !limit.hasQueueLimit()) {
            return Decision.UNCOUNTED;
        }
        long maxHooks = limit.maxQueue().orElse(Integer.MAX_VALUE);
        long maxBytes = limit.maxQueueBytes().orElse(Long.MAX_VALUE);
        for (;;) {
            Entry entry = entries.get(tenant);
            if (entry == null) {
                Entry fresh = new Entry(tenant);
                entry = entries.putIfAbsent(tenant, fresh);
                if (entry == null) {
                    entry = fresh;
                }
            }
            long h = entry.hooks.incrementAndGet();
            if (h <= 0) { // retired under us: help remove it, then use a fresh entry
                entries.remove(tenant, entry);
                continue;
            }
            if (h > maxHooks) {
                dropHook(entry);
                return refused;
            }
            long b = entry.bytes.addAndGet(bytes);
            if (b <= maxBytes || (h == 1 && b == bytes)) {
                return new Decision(new Lease(entry, bytes), 0L);
            }
            entry.bytes.addAndGet(-bytes);
            dropHook(entry);
            return refused;
        }
    }

    /** Gives back what {@code lease} counted. Safe with null; a second release of one lease does nothing. */
    public void release(Lease lease) {
        if (lease == null || !lease.released.compareAndSet(false, true)) {
            return;
        }
        lease.entry.bytes.addAndGet(-lease.bytes);
        dropHook(lease.entry);
    }

    /** Subtracts one hook (bytes already given back) and retires the entry at zero. */
    private void dropHook(Entry entry) {
        if (entry.hooks.decrementAndGet() == 0 && entry.hooks.compareAndSet(0, DEAD)) {
            entries.remove(entry.tenant, entry);
        }
    }

    // ------------------------------------------------------------------ inspection

    /** Hooks {@code tenant} holds now (0 when none). */
    public long hooks(String tenant) {
        Entry entry = entries.get(tenant);
        long h = entry == null ? 0 : entry.hooks.get();
        return Math.max(h, 0);
    }

    /** Body bytes {@code tenant} holds now (0 when none). */
    public long bytes(String tenant) {
        Entry entry = entries.get(tenant);
        return entry == null || entry.hooks.get() < 0 ? 0 : entry.bytes.get();
    }

    /** Tenants with an entry: those holding something (plus, briefly, ones being retired). */
    public int tenants() {
        return entries.size();
    }
}
