package org.sluice.shm;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.sluice.core.Limit;
import org.sluice.core.LimitChange;

/**
 * The host's current limit of one {@link SharedLimiter}, in a carve of its own, so that
 * every process charges with the limit the last live change set.
 *
 * <pre>
 *  +0     version: 0 until the first live change (the builders' bandwidths), then +1 per change
 *  +64    slot 0 \  version v's limit is in slot (v mod 2):
 *  +384   slot 1 /    change (LimitChange ordinal), n, previous n,
 *                     n x (rate as double bits, burst), previous n x (rate bits, burst)
 * </pre>
 * Every field is a little-endian long. A change happens under the arena's file lock: it
 * writes the slot of the next version (the one no reader of the current version reads),
 * then publishes the version with one compare-and-swap. A reader reads the version, the
 * slot it names, and the version again, and tries again if it moved: the slot of version
 * {@code v} is written again only for {@code v + 2}, after {@code v + 1} was published, so
 * a reader that saw {@code v} twice read it whole. A writer that dies half way leaves the
 * version unpublished; the next change writes the slot again.
 */
final class LimitRecord {

    static final int VERSION_AT = 0;
    static final int SLOT_AT = 64;
    static final int SLOT_BYTES = 320;
    static final int BYTES = SLOT_AT + 2 * SLOT_BYTES;

    /** One version of the limit: its bandwidths, the change that made it, and the bandwidths before it. */
    record Version(long version, LimitChange change, List<Limit> limits, List<Limit> previous) {
    }

    private final MappedWords words;
    private final int base;

    LimitRecord(ByteBuffer map, int offset) {
        this.words = new MappedWords(map, offset, offset + BYTES);
        this.base = offset;
    }

    /** The current version (one volatile read: the check every call makes). */
    long version() {
        return words.getVolatile(base + VERSION_AT);
    }

    /** The current version whole; version 0 (never changed) answers no bandwidths. */
    Version read() {
        while (true) {
            long v = version();
            if (v == 0L) {
                return new Version(0L, LimitChange.RESET, List.of(), List.of());
            }
            int slot = base + SLOT_AT + (int) (v & 1) * SLOT_BYTES;
            int change = (int) words.getVolatile(slot);
            int n = (int) words.getVolatile(slot + 8);
            int previous = (int) words.getVolatile(slot + 16);
            if (version() != v) {
                continue;
            }
            if (change < 0 || change >= LimitChange.values().length || n < 1 || n > SharedLimiter.MAX_BANDWIDTHS
                    || previous < 0 || previous > SharedLimiter.MAX_BANDWIDTHS) {
                throw new IllegalStateException("shared limit record is damaged: version " + v + ", change " + change
                        + ", " + n + " bandwidths, " + previous + " before");
            }
            List<Limit> limits = limits(slot + 24, n);
            List<Limit> before = limits(slot + 24 + 16 * SharedLimiter.MAX_BANDWIDTHS, previous);
            if (version() == v) {
                return new Version(v, LimitChange.values()[change], limits, before);
            }
        }
    }

    private List<Limit> limits(int at, int n) {
        List<Limit> limits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            double rate = Double.longBitsToDouble(words.getVolatile(at + 16 * i));
            long burst = words.getVolatile(at + 16 * i + 8);
            limits.add(Limit.of(rate, (int) burst));
        }
        return limits;
    }

    /**
     * Publishes {@code limits} as the next version after {@code current}, made by {@code
     * change}. The caller holds the arena's file lock (one writer at a time, every process).
     */
    long publish(Version current, List<Limit> previous, List<Limit> limits, LimitChange change) {
        long next = current.version() + 1;
        int slot = base + SLOT_AT + (int) (next & 1) * SLOT_BYTES;
        words.setRelease(slot, change.ordinal());
        words.setRelease(slot + 8, limits.size());
        words.setRelease(slot + 16, previous.size());
        write(slot + 24, limits);
        write(slot + 24 + 16 * SharedLimiter.MAX_BANDWIDTHS, previous);
        if (!words.compareAndSet(base + VERSION_AT, current.version(), next)) {
            throw new IllegalStateException("shared limit record changed under the arena's lock: expected version "
                    + current.version() + ", found " + version());
        }
        return next;
    }

    private void write(int at, List<Limit> limits) {
        for (int i = 0; i < limits.size(); i++) {
            words.setRelease(at + 16 * i, Double.doubleToRawLongBits(limits.get(i).rate()));
            words.setRelease(at + 16 * i + 8, limits.get(i).burst());
        }
    }
}
