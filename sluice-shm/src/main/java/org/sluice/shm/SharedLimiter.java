package org.sluice.shm;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.core.LimitChange;
import org.sluice.core.LimiterListener;
import org.sluice.core.Probe;
import org.sluice.core.Sleeper;

/**
 * sluice-core's {@link KeyedLimit} over shared memory: one limit per key for every
 * process on the host that maps the arena, built like sluice-core's {@code KeyedLimiter}.
 *
 * <pre>
 * KeyedLimit&lt;String&gt; perTenant = arena.limiter("tenants")     // was: KeyedLimiter.&lt;String&gt;builder()
 *         .slots(16_384)
 *         .bandwidth(Limit.of(100, 100))                        // 100 per second, bursts of 100
 *         .bandwidth(Limit.of(1000 / 60.0, 1000))               // and 1,000 per minute
 *         .build();
 * long wait = perTenant.tryAcquire("tenant-a", 1);
 * </pre>
 *
 * <h2>Layout</h2>
 * Bandwidth {@code i} of every key is one word of its own table in the arena: the first
 * is the table {@code name}, the others {@code name#2}, {@code name#3}, ...; a key has the
 * same hash, group and fingerprint in each. The host's current limit is the carve
 * {@code name#limit} ({@link LimitRecord}): a version, and each version's bandwidths. A
 * key's word is charged by one compare-and-swap across processes ({@link SlotTable}). A
 * limiter of {@code n} bandwidths takes {@code n + 1} of the arena's 64 carves.
 *
 * <h2>A charge of several bandwidths</h2>
 * A 64-bit word holds a 24-bit fingerprint and one 40-bit time, the most Java can
 * compare-and-swap in one step: the times of two bandwidths (80 bits and a fingerprint)
 * cannot change together, and packing them smaller would lose exactness. So a call of
 * several bandwidths <b>looks, then charges, then undoes</b>:
 * <ol>
 *   <li>It reads every bandwidth's word and computes the wait, writing nothing. A call
 *       some bandwidth refuses ends here: a refusal writes nothing, in any process.</li>
 *   <li>Otherwise it charges the bandwidths in order, each by its own CAS. When one
 *       refuses now (another charge of the key landed since the look), the ones already
 *       charged are undone ({@link SlotTable#refund}) and the call is refused with the
 *       wait of all bandwidths read again.</li>
 * </ol>
 * Never over: every admission was admitted by every bandwidth's own CAS, so each
 * bandwidth alone keeps its bound. The undo gives the charge back whole when the word is
 * still the one it wrote. When another charge of the key landed on the word in between
 * (computed on top of ours), it gives back the charge less the time from the charge's
 * start ({@code max(tat, now)}) to a reading taken after the word was read: a GCRA
 * step {@code tat = max(tat, t) + inc} of a charge read at {@code t <= now'} moves the
 * result by at least that much less when ours is taken out, so the undo never frees time
 * another charge spent. With every reading alike (a manual clock, or calls within the
 * same microsecond, the word's unit) nothing stays spent; otherwise at most the
 * microseconds between the call's reading and its undo, and only when two charges of one
 * key raced. Between the charge and the undo another caller may be refused by the
 * charged bandwidth (under-admission, never over). A call of one bandwidth is the one
 * CAS it always was.
 *
 * <h2>A live change</h2>
 * {@link #replaceBandwidths} changes the limit for every process on the host, as {@code
 * KeyedLimiter}'s does for one process, with the same {@link LimitChange}s. The lowest
 * bit of a word's fingerprint is the parity of the limit version it was written under
 * (so a key has 23 bits of fingerprint of its own). Under the arena's file lock the
 * change (1) converts any word still of the version before the current one (a caller of
 * that version that was slow to write), so no word carries the next version's parity
 * yet, (2) empties the tables of bandwidths the current version does not use, (3)
 * publishes the next version in the record, then (4) converts every word to it, at one
 * reading of the clock. A call reads the record's version (one volatile read) and, when
 * it moved, the new bandwidths. A caller that meets a word of the other parity converts
 * it (in the same CAS as its charge) if its version is the current one, else it learns
 * the new version and asks again; a word is thus converted exactly once, by the walk or
 * by a caller, and a process that has not yet read the new version charges no converted
 * word with the old limit. The one case left: a call that read the record, then stalled
 * through a whole change and the next one's start, can write a word the next change
 * reads in its own units (clamped to its burst: a bandwidth never admits more than its
 * burst from any word). An undo whose word a change converted meanwhile leaves its charge
 * spent (fewer admissions, never more). A process built after a change takes the
 * record's bandwidths, not its builder's.
 *
 * <h2>Time and other rules</h2>
 * Time is kept in whole microseconds (see {@link SharedGcraTable}): a limit whose
 * interval is a whole number of microseconds is exact, others are within half a
 * microsecond per permit. A probe's {@code remaining} and {@code resetNanos} are read
 * just after the charge, so another process's charge in between can only make them
 * smaller. The table's rules hold too: under contention heavy enough to exhaust the CAS
 * retries a bandwidth admits uncharged ({@link LimiterListener#contended()}), and a key
 * may be evicted when its group of slots is full of keys in debt ({@link
 * LimiterListener#evicted()}). The listener hears this process's calls only.
 *
 * <p>The waiting calls are {@link KeyedLimit}'s defaults: {@code acquire} sleeps the
 * wait {@code tryAcquire} answers and asks again, {@code acquireAsync} asks again on the
 * caller's scheduler; neither reserves. There is no {@code reserve}: a key's word holds a
 * debt of at most {@link SharedGcraTable#MAX_TOLERANCE_NANOS}, and a key in debt is what
 * the table's eviction rule protects, so unbounded reservations would pin slots.
 */
public final class SharedLimiter implements KeyedLimit<String> {

    /** The most bandwidths a shared limiter takes: each is a table of the arena's 64 carves. */
    public static final int MAX_BANDWIDTHS = 8;

    private final String name;
    private final SharedArena arena;
    private final int slots;
    private final KeyHash keyHash;
    private final Clock clock;
    private final Sleeper sleeper;
    private final LimiterListener listener;
    private final SlotTable.Events events;
    private final LimitRecord record;
    /** The bandwidths of the record's version this process last read (the builder's until a live change). */
    private volatile SharedBands bands;

    private SharedLimiter(Builder b) {
        this.name = b.name;
        this.arena = b.arena;
        this.slots = b.slots;
        this.keyHash = b.arena.keyHash();
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.listener = b.listener;
        this.events = new SlotTable.Events() {
            @Override
            public void evicted() {
                listener.evicted();
            }

            @Override
            public void contended() {
                listener.contended();
            }
        };
        if (b.bandwidths.size() > MAX_BANDWIDTHS) {
            throw new IllegalArgumentException("a shared limiter takes at most " + MAX_BANDWIDTHS + " bandwidths, got "
                    + b.bandwidths.size());
        }
        this.record = arena.limitRecord(name);
        LimitRecord.Version current = record.read();
        this.bands = current.version() == 0L
                ? new SharedBands(b.bandwidths, tables(b.bandwidths.size()), 0L, LimitChange.RESET, List.of(), record)
                : bandsOf(current);
    }

    /** The tables of the first {@code n} bandwidths, each found or carved. */
    private SlotTable[] tables(int n) {
        SlotTable[] tables = new SlotTable[n];
        for (int i = 0; i < n; i++) {
            tables[i] = arena.limiterTable(tableName(name, i), slots, events);
        }
        return tables;
    }

    private SharedBands bandsOf(LimitRecord.Version v) {
        return new SharedBands(v.limits(), tables(v.limits().size()), v.version(), v.change(), v.previous(), record);
    }

    /** The bandwidths of the record's current version: those in use, or read again after a live change. */
    private SharedBands current() {
        SharedBands b = bands;
        if (record.version() == b.version) {
            return b;
        }
        synchronized (this) {
            LimitRecord.Version v = record.read();
            if (v.version() != bands.version) {
                bands = bandsOf(v);
            }
            return bands;
        }
    }

    /** A builder of a limiter over the GCRA tables {@code name}, {@code name#2}, ... of {@code arena}. */
    public static Builder builder(SharedArena arena, String name) {
        return new Builder(arena, name);
    }

    /** The table of bandwidth {@code i}: {@code name}, then {@code name#2}, {@code name#3}, ... */
    static String tableName(String name, int i) {
        return i == 0 ? name : name + "#" + (i + 1);
    }

    @Override
    public long tryAcquire(String key, long permits) {
        return charge(keyHash.hash(Objects.requireNonNull(key, "key")), permits, null);
    }

    /** {@link #tryAcquire(String, long)} on a key's bytes (hashed as they are; no copy). */
    public long tryAcquire(byte[] key, long permits) {
        return charge(keyHash.hash(Objects.requireNonNull(key, "key")), permits, null);
    }

    @Override
    public boolean tryAcquire(String key, long permits, Probe probe) {
        Objects.requireNonNull(probe, "probe");
        return charge(keyHash.hash(Objects.requireNonNull(key, "key")), permits, probe) == 0L;
    }

    /** Gives the key's slots back: its buckets read as full. */
    @Override
    public void reset(String key) {
        current().forget(keyHash.hash(Objects.requireNonNull(key, "key")));
    }

    @Override
    public List<Limit> bandwidths() {
        return current().limits;
    }

    /** The clock the limiter reads (and its waits are measured on). */
    @Override
    public Clock clock() {
        return clock;
    }

    /** How {@link #acquire} waits: the builder's sleeper. */
    @Override
    public Sleeper sleeper() {
        return sleeper;
    }

    /** The builder's listener. */
    @Override
    public LimiterListener listener() {
        return listener;
    }

    private long charge(long hash, long permits, Probe probe) {
        while (true) {
            SharedBands b = current();
            b.checkPermits(permits);
            long now = Math.floorDiv(clock.nanoTime(), 1000L);
            long wait = b.charge(hash, permits, now, clock);
            if (wait == SlotTable.STALE) {
                continue; // a live change published a newer version since: charge that one
            }
            long waitNs = wait * 1000;
            if (probe != null) {
                b.answer(probe, hash, now, waitNs);
            }
            if (waitNs == 0L) {
                listener.admitted(permits);
            } else {
                listener.refused(permits, waitNs);
            }
            return waitNs;
        }
    }

    /**
     * Replaces the bandwidths of every key, for every process that maps the arena: the
     * new limit is written to the arena as its next version and every key's words are
     * converted as {@code change} says, at one reading of the clock (see "A live change").
     * Calls that start after this one returns, in any process, see only the new
     * bandwidths.
     *
     * @throws IllegalStateException when {@code bandwidths} is empty
     * @throws IllegalArgumentException when it holds more than {@link #MAX_BANDWIDTHS}
     */
    @Override
    public void replaceBandwidths(List<Limit> bandwidths, LimitChange change) {
        Objects.requireNonNull(change, "change");
        List<Limit> next = List.copyOf(Objects.requireNonNull(bandwidths, "bandwidths"));
        if (next.isEmpty()) {
            throw new IllegalStateException("at least one bandwidth is required, got none");
        }
        if (next.size() > MAX_BANDWIDTHS) {
            throw new IllegalArgumentException("a shared limiter takes at most " + MAX_BANDWIDTHS + " bandwidths, got " + next.size());
        }
        synchronized (this) { // this, then the arena's locks: the order current() takes them in
            arena.underLock(() -> {
                SharedBands before = current();
                LimitRecord.Version published = record.read();
                // no word of the version before this one may be left: its parity is the next version's
                before.convertAll(Math.floorDiv(clock.nanoTime(), 1000L));
                SlotTable[] tables = tables(next.size());
                for (int i = before.size(); i < tables.length; i++) {
                    tables[i].clearAll(); // words an older version left in a table the current one did not use
                }
                SharedBands after = new SharedBands(next, tables, published.version() + 1, change, before.limits, record);
                record.publish(published, before.limits, next, change);
                bands = after;
                after.convertAll(Math.floorDiv(clock.nanoTime(), 1000L)); // every key now, at about one reading
                return after;
            });
        }
    }

    /** The bandwidths over their tables (tests). */
    SharedBands bandsForTest() {
        return bands;
    }

    @Override
    public String toString() {
        return "SharedLimiter['" + name + "', " + bands.limits + "]";
    }

    // ------------------------------------------------------------------ builder

    /** Builds a {@link SharedLimiter}; at least one {@link #bandwidth} is required. */
    public static final class Builder {
        private final SharedArena arena;
        private final String name;
        private final List<Limit> bandwidths = new ArrayList<>();
        private int slots = SharedArena.DEFAULT_SLOTS;
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();
        private LimiterListener listener = LimiterListener.NONE;

        private Builder(SharedArena arena, String name) {
            this.arena = Objects.requireNonNull(arena, "arena");
            this.name = Objects.requireNonNull(name, "name");
        }

        /** Adds a bandwidth every key is held to; a call is admitted only when all admit it. */
        public Builder bandwidth(Limit limit) {
            bandwidths.add(Objects.requireNonNull(limit, "bandwidth must not be null"));
            return this;
        }

        /** Keys each bandwidth's table holds (rounded up to a power of two); default {@link SharedArena#DEFAULT_SLOTS}. */
        public Builder slots(int slots) {
            this.slots = slots;
            return this;
        }

        /** The clock every process must share ({@link Clock#system()}, the default, or a test's). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /** How {@link SharedLimiter#acquire} waits; default {@link Sleeper#system()}. */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
            return this;
        }

        /** Told every decision of this process's calls; default {@link LimiterListener#NONE}. */
        public Builder listener(LimiterListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener must not be null");
            return this;
        }

        public SharedLimiter build() {
            return new SharedLimiter(this);
        }
    }
}
