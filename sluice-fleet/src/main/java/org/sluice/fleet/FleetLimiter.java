package org.sluice.fleet;

import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.LimitChange;
import org.sluice.core.LimiterListener;
import org.sluice.core.Probe;
import org.sluice.core.Sleeper;

/**
 * sluice-core's {@link KeyedLimit} at fleet scope: one limit per key for every node that
 * names the same limiter, held in Redis by {@code limit.lua}. On a standalone Redis the
 * charges of concurrent callers share script calls (group commit, {@link AdmitBatcher}, as
 * {@link FleetClient#admit} does): each caller still blocks for its own answer, decided
 * as if by a call of its own; with a cluster each charge is its own call.
 *
 * <pre>
 * FleetLimiter perTenant = FleetLimiter.builder(FleetSettings.defaults().withRedis(uri), "api")
 *         .bandwidth(Limit.of(100, 100)).bandwidth(Limit.of(1000 / 60.0, 1000))
 *         .listener(metrics).build();
 * // was: KeyedLimiter.&lt;String&gt;builder().bandwidth(...).bandwidth(...).listener(metrics).build();
 * long wait = perTenant.tryAcquire("tenant-a", 1);
 * perTenant.replaceBandwidths(List.of(Limit.of(200, 200)), LimitChange.PROPORTIONAL); // every node
 * </pre>
 *
 * <h2>Semantics</h2>
 * Every bandwidth of a key is one Redis key holding its GCRA time in microseconds, beside
 * a key naming the limit version those times are in; the script charges all of them or
 * none, atomically, at Redis's clock ({@code TIME}), so the nodes' clocks need not agree.
 * Limits whose interval is a whole number of microseconds are exact. A key's Redis keys
 * expire when its buckets are full again.
 *
 * <h2>A live change</h2>
 * {@link #replaceBandwidths} writes the fleet's limit, as its next version, to one Redis
 * hash ({@code limit-record.lua}); each key is converted to it, as {@link LimitChange}
 * says, by the first charge of that version ({@code limit.lua}, in the same script as the
 * charge). A node on an older version is answered "stale" by any key already converted,
 * reads the fleet's limit and asks again; it also reads it, without waiting, once a
 * second while it is called, and a node built after a change takes the fleet's limit
 * instead of its builder's.
 *
 * <h2>When Redis does not answer</h2>
 * As {@link FleetClient}: each call waits at most the settings' {@code timeoutMs}; a call
 * that fails or runs out of budget, or that the breaker ({@code breaker*} settings) keeps
 * from Redis while it is open, is answered by a node-local {@link KeyedLimiter} of the
 * same bandwidths, so a fleet of {@code N} nodes admits at most {@code N} times the limit
 * while Redis is away, and never blocks on it. {@link #fallbacks()} counts those answers.
 *
 * <p>Keys are 1 to 128 characters of {@code A-Z a-z 0-9 . _ -} (they are part of Redis
 * key names; a caller with other keys hashes them first). Calls block the calling thread
 * for the Redis round trip: this is a limiter for workers, not for event loops.
 *
 * <h2>Waiting</h2>
 * {@code acquire} and {@code acquireAsync} are {@link KeyedLimit}'s defaults: they ask
 * {@code tryAcquire} and, while refused with a wait that fits in the timeout, sleep (or
 * schedule) that wait and ask again; nothing is reserved, and {@code acquireAsync}'s
 * later calls run on the caller's scheduler, each blocking it for a round trip. There is
 * no {@code reserve}: a reservation Redis took but whose answer was lost (a timeout)
 * would hold permits no node knows about, and the node-local fallback could not honour
 * one Redis made.
 */
public final class FleetLimiter implements KeyedLimit<String>, AutoCloseable {

    static final Script LIMIT = Script.load("limit.lua");
    static final Script RECORD = Script.load("limit-record.lua");
    /** The most bandwidths a fleet limiter takes (a reset deletes this many keys' buckets). */
    static final int MAX_BANDWIDTHS_KEPT = 8;
    /** How often a node asks Redis, in the background of a call, whether the fleet's limit changed. */
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Charges of one call: a stale answer makes the node read the fleet's limit and ask again, this many times at most. */
    private static final int ATTEMPTS = 3;
    /** {@code ask}'s answers other than a wait: the key is on a newer version; Redis did not answer. */
    private static final long STALE = -2L;
    private static final long FAILED = -3L;
    /** limit.lua takes no header: every charge carries its own "now", version and bandwidths. */
    private static final String[] NO_HEADER = {};
    /** Completes a charge that ran out of budget, so a batcher still holding it skips it; no stack trace. */
    private static final TimeoutException BUDGET_EXCEEDED = new TimeoutException("fleet timeoutMs exceeded") {
        @Override
        public Throwable fillInStackTrace() {
            return this;
        }
    };

    /** One version of the limit: its bandwidths in script microseconds. Immutable. */
    record Shape(long version, LimitChange change, List<Limit> limits, long[] intervalsUs, long[] tolerancesUs, long maxPermits) {

        static Shape of(long version, LimitChange change, List<Limit> bandwidths) {
            List<Limit> limits = List.copyOf(Objects.requireNonNull(bandwidths, "bandwidths"));
            if (limits.isEmpty()) {
                throw new IllegalArgumentException("bandwidths must hold at least one limit, got none");
            }
            int n = limits.size();
            long[] intervals = new long[n];
            long[] tolerances = new long[n];
            long smallest = Long.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                Limit bw = limits.get(i);
                intervals[i] = FleetGcra.micros(1, bw.rate());
                tolerances[i] = FleetGcra.micros(bw.burst(), bw.rate());
                smallest = Math.min(smallest, bw.burst());
            }
            return new Shape(version, change, limits, intervals, tolerances, smallest);
        }

        void checkPermits(long permits) {
            if (permits < 1 || permits > maxPermits) {
                throw new IllegalArgumentException("permits must be from 1 to the smallest burst of the limiter's bandwidths ("
                        + maxPermits + "), got " + permits);
            }
        }

        /** The record's form of the bandwidths: {@code rate,burst;rate,burst}. */
        String encoded() {
            StringBuilder b = new StringBuilder();
            for (Limit bw : limits) {
                b.append(b.length() == 0 ? "" : ";").append(bw.rate()).append(',').append(bw.burst());
            }
            return b.toString();
        }

        static List<Limit> decode(String encoded) {
            List<Limit> limits = new ArrayList<>();
            for (String bw : encoded.split(";")) {
                String[] rateBurst = bw.split(",");
                limits.add(Limit.of(Double.parseDouble(rateBurst[0]), Integer.parseInt(rateBurst[1])));
            }
            return limits;
        }
    }

    private final FleetSettings settings;
    private final String name;
    private final RedisLink link;
    /** Group commit of charges (standalone Redis); null with a cluster: one call per charge (its key's slot). */
    private final AdmitBatcher batcher;
    private final CircuitBreaker breaker;
    private final KeyedLimiter<String> local;
    /** Readings of this clock are sent as "now" instead of Redis TIME: tests on a manual clock only. */
    private final Clock scriptClock;
    private final Clock clock;
    private final Sleeper sleeper;
    private final LimiterListener listener;
    private final LongAdder fallbacks = new LongAdder();
    private final AtomicLong lastRefresh;
    private volatile Shape shape;

    private FleetLimiter(Builder b) {
        this.settings = Objects.requireNonNull(b.settings, "settings");
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.listener = b.listener;
        this.name = Keys.checkId("name", b.name);
        this.shape = Shape.of(0L, LimitChange.RESET, b.bandwidths);
        this.scriptClock = b.scriptClock;
        this.breaker = new CircuitBreaker(clock, settings.breakerFailureRate(), settings.breakerMinCalls(),
                TimeUnit.MILLISECONDS.toNanos(settings.breakerWindowMs()),
                TimeUnit.MILLISECONDS.toNanos(settings.breakerOpenMs()));
        KeyedLimiter.Builder<String> local = KeyedLimiter.<String>builder().clock(clock);
        shape.limits().forEach(local::bandwidth);
        this.local = local.build();
        this.link = new RedisLink(settings);
        this.batcher = settings.cluster() ? null : AdmitBatcher.forScript(link, LIMIT, NO_HEADER, settings.timeoutMs(),
                AdmitBatcher.QUEUE_MAX, AdmitBatcher.BATCH_MAX, AdmitBatcher.IN_FLIGHT_MAX);
        this.lastRefresh = new AtomicLong(clock.nanoTime());
    }

    /**
     * A builder of the limiter {@code name}: every node that builds a limiter of that name
     * shares each key's buckets, shaped like sluice-core's {@code KeyedLimiter.builder()}.
     */
    public static Builder builder(FleetSettings settings, String name) {
        return new Builder(settings, name);
    }

    /**
     * Connects (a Redis that is down is no error: calls answer node-local until it is up)
     * and answers the limiter {@code name}: every node that starts a limiter of that name
     * with the same bandwidths shares each key's buckets.
     */
    public static FleetLimiter start(FleetSettings settings, String name, List<Limit> bandwidths) {
        return start(settings, name, bandwidths, Clock.system(), null, Sleeper.system());
    }

    /** With the clock the breaker and the fallback use and, when {@code scriptClock} is not null, the script's time. */
    static FleetLimiter start(FleetSettings settings, String name, List<Limit> bandwidths, Clock clock, Clock scriptClock) {
        return start(settings, name, bandwidths, clock, scriptClock, Sleeper.system());
    }

    /** As above, with the sleeper the blocking {@code acquire} waits on (a test's moves its manual clock). */
    static FleetLimiter start(FleetSettings settings, String name, List<Limit> bandwidths, Clock clock, Clock scriptClock,
            Sleeper sleeper) {
        Builder b = builder(settings, name).clock(clock).sleeper(sleeper).scriptClock(scriptClock);
        Objects.requireNonNull(bandwidths, "bandwidths").forEach(b::bandwidth);
        return b.build();
    }

    @Override
    public long tryAcquire(String key, long permits) {
        return charge(key, permits, null);
    }

    @Override
    public boolean tryAcquire(String key, long permits, Probe probe) {
        Objects.requireNonNull(probe, "probe");
        return charge(key, permits, probe) == 0L;
    }

    /** Deletes the key's buckets in Redis (and its node-local ones): full everywhere. */
    @Override
    public void reset(String key) {
        local.reset(key);
        RedisLink.Channel ch = link.requests();
        if (ch == null) {
            return;
        }
        try {
            ch.keys().del(keysOf(key, MAX_BANDWIDTHS_KEPT)).get(settings.timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the keys expire by themselves once full: a reset Redis did not take is only late
        }
    }

    /** The bandwidths every key is held to: the fleet's latest this node knows of. */
    @Override
    public List<Limit> bandwidths() {
        return shape.limits();
    }

    /** The limit's version this node charges with: 0 until the limit is first changed live, then one more per change. */
    public long limitVersion() {
        return shape.version();
    }

    /**
     * Replaces the bandwidths of every key, for every node of the fleet: the new limit is
     * written to Redis as the next version (one script, atomic), and each key's buckets
     * are converted as {@code change} says the first time any node charges the key with
     * that version ({@code limit.lua}, atomically with the charge). A node still on the
     * old version is told so by the first key already converted, and learns the new limit
     * within {@link #REFRESH_NANOS} of its calls in any case; until then it charges keys no
     * newer node has touched with the old limit, which are converted when a newer node
     * next charges them. Node-local fallback buckets are converted here, on this node.
     *
     * @throws IllegalStateException when Redis does not take the change within the
     *     settings' {@code timeoutMs} (nothing changed: a fleet-wide limit cannot change
     *     on one node alone)
     */
    @Override
    public void replaceBandwidths(List<Limit> bandwidths, LimitChange change) {
        Objects.requireNonNull(change, "change");
        Shape next = Shape.of(0L, change, bandwidths);
        if (next.limits().size() > MAX_BANDWIDTHS_KEPT) {
            throw new IllegalArgumentException("a fleet limiter takes at most " + MAX_BANDWIDTHS_KEPT + " bandwidths, got "
                    + next.limits().size());
        }
        RedisLink.Channel ch = link.requests();
        if (ch == null) {
            throw new IllegalStateException("cannot change fleet limiter '" + name + "': Redis is not connected");
        }
        List<Object> record;
        try {
            record = RECORD.<List<Object>>eval(ch, ScriptOutputType.MULTI, new String[] {recordKey()}, next.encoded(), change.name())
                    .get(settings.timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while changing fleet limiter '" + name + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot change fleet limiter '" + name + "': Redis did not take it", e);
        }
        adopt(record);
    }

    /** The node's clock: the breaker's and the fallback's, and what the waiting calls measure a timeout on. */
    @Override
    public Clock clock() {
        return clock;
    }

    /** How {@link #acquire} waits ({@link Sleeper#system()}). */
    @Override
    public Sleeper sleeper() {
        return sleeper;
    }

    /** The builder's listener, told every decision of this node's calls (node-local answers included). */
    @Override
    public LimiterListener listener() {
        return listener;
    }

    /** Calls answered node-local since start: Redis failed, ran out of budget, or the breaker was open. */
    public long fallbacks() {
        return fallbacks.sum();
    }

    public BreakerState breakerState() {
        return breaker.state();
    }

    /** The charge batcher, or null with a cluster (tests). */
    AdmitBatcher batcher() {
        return batcher;
    }

    // ------------------------------------------------------------------ the charge

    private long charge(String key, long permits, Probe probe) {
        Shape s = shape;
        String[] keys = keysOf(key, s.limits().size());
        s.checkPermits(permits);
        long wait = FAILED;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            wait = ask(keys, s, permits, probe);
            if (wait != STALE) {
                break;
            }
            Shape newer = refresh(); // the key is on a newer version of the fleet's limit: learn it, ask again
            if (newer == null || newer.version() <= s.version()) {
                break;
            }
            s = newer;
            s.checkPermits(permits);
            keys = keysOf(key, s.limits().size());
        }
        if (wait < 0L) {
            wait = fallBack(key, permits, probe); // Redis did not answer, or the fleet's limit could not be learnt
        }
        refreshNowAndThen();
        if (wait == 0L) {
            listener.admitted(permits);
        } else {
            listener.refused(permits, wait);
        }
        return wait;
    }

    /**
     * One charge of {@code limit.lua}: the wait in ns, {@link #STALE} when the key is on a
     * newer version, {@link #FAILED} when Redis did not answer (or answered with something
     * this script does not write). On a standalone Redis the charge joins the other
     * charges waiting at that moment in one script call ({@link AdmitBatcher}); with a
     * cluster it is a call of its own.
     */
    private long ask(String[] keys, Shape s, long permits, Probe probe) {
        int permit = breaker.acquire();
        RedisLink.Channel ch = permit == CircuitBreaker.DENIED ? null : link.requests();
        if (ch == null) {
            if (permit != CircuitBreaker.DENIED) {
                breaker.onResult(permit, true);
            }
            return FAILED;
        }
        LimitCall call = new LimitCall(keys, arguments(s, permits));
        List<Object> reply;
        try {
            if (batcher != null) {
                batcher.submit(call);
            } else {
                AdmitBatcher.sendAlone(ch, LIMIT, NO_HEADER, call);
            }
            reply = call.get(settings.timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            call.completeExceptionally(e);
            Thread.currentThread().interrupt();
            breaker.onResult(permit, true);
            return FAILED;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            call.completeExceptionally(BUDGET_EXCEEDED); // a no-op unless it is still queued or in flight
            breaker.onResult(permit, true);
            return FAILED;
        }
        if (!wellFormed(reply, s.intervalsUs().length)) {
            breaker.onResult(permit, true);
            return FAILED;
        }
        breaker.onResult(permit, false);
        if ((Long) reply.get(0) < 0L) {
            return STALE;
        }
        long wait = (Long) reply.get(0) * 1000;
        if (probe != null) {
            long remaining = Long.MAX_VALUE;
            long reset = 0L;
            for (int i = 0; i < s.intervalsUs().length; i++) {
                long debt = Math.max(0L, (Long) reply.get(i + 1));
                long room = s.tolerancesUs()[i] - debt;
                remaining = Math.min(remaining, room > 0 ? room / s.intervalsUs()[i] : 0L);
                reset = Math.max(reset, debt * 1000);
            }
            probe.set(wait == 0L, remaining, wait, reset);
        }
        return wait;
    }

    /** {@code {wait >= 0, debt_1, ..., debt_n}} or {@code {-1, version}}, every entry an integer: what limit.lua answers. */
    static boolean wellFormed(List<Object> reply, int bandwidths) {
        if (reply == null || reply.isEmpty()) {
            return false;
        }
        for (Object o : reply) {
            if (!(o instanceof Long)) {
                return false;
            }
        }
        long first = (Long) reply.get(0);
        return first == -1L ? reply.size() == 2 : first >= 0L && reply.size() == bandwidths + 1;
    }

    private long fallBack(String key, long permits, Probe probe) {
        fallbacks.increment();
        return probe == null ? local.tryAcquire(key, permits) : (local.tryAcquire(key, permits, probe) ? 0L : probe.waitNanos());
    }

    // ------------------------------------------------------------------ the fleet's limit

    /** Reads the fleet's limit now (within the timeout) and adopts it when newer; the shape in use after, or null when Redis did not answer. */
    private Shape refresh() {
        RedisLink.Channel ch = link.requests();
        if (ch == null) {
            return null;
        }
        try {
            adopt(RECORD.<List<Object>>eval(ch, ScriptOutputType.MULTI, new String[] {recordKey()}, "", "")
                    .get(settings.timeoutMs(), TimeUnit.MILLISECONDS));
            return shape;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return null;
        }
    }

    /** At most once per {@link #REFRESH_NANOS}, asks for the fleet's limit without waiting for the answer. */
    private void refreshNowAndThen() {
        long last = lastRefresh.get();
        long now = clock.nanoTime();
        if (now - last < REFRESH_NANOS || !lastRefresh.compareAndSet(last, now)) {
            return;
        }
        RedisLink.Channel ch = link.requests();
        if (ch != null) {
            CompletableFuture<Void> unused = RECORD.<List<Object>>eval(ch, ScriptOutputType.MULTI, new String[] {recordKey()}, "", "")
                    .thenAccept(this::adopt); // a failure leaves the limit as it is until the next try
        }
    }

    /** Takes the record {@code {version, change, bandwidths}} as this node's limit when it is newer than the one in use. */
    private void adopt(List<Object> record) {
        long version = (Long) record.get(0);
        if (version == 0L) {
            return;
        }
        synchronized (this) {
            if (version <= shape.version()) {
                return;
            }
            LimitChange change = LimitChange.valueOf((String) record.get(1));
            Shape next = Shape.of(version, change, Shape.decode((String) record.get(2)));
            local.replaceBandwidths(next.limits(), change);
            shape = next;
        }
    }

    private String recordKey() {
        return "sluice:{l:" + name + "}:limit";
    }

    /** The keys of {@code key}'s first {@code n} bandwidths, then the key of the limit they are in. */
    private String[] keysOf(String key, int n) {
        String tag = "sluice:{l:" + name + ":" + Keys.checkId("key", key) + "}:";
        String[] keys = new String[n + 1];
        for (int i = 0; i < n; i++) {
            keys[i] = tag + i;
        }
        keys[n] = tag + "v";
        return keys;
    }

    /** One charge's arguments to limit.lua: "now", version, change, the number of bandwidths, then each one's three. */
    private String[] arguments(Shape s, long permits) {
        int n = s.intervalsUs().length;
        String[] args = new String[4 + 3 * n];
        args[0] = scriptClock == null ? "" : Long.toString(Math.floorDiv(scriptClock.nanoTime(), 1000L));
        args[1] = Long.toString(s.version());
        args[2] = Integer.toString(s.change().ordinal());
        args[3] = Integer.toString(n);
        for (int i = 0; i < n; i++) {
            args[4 + 3 * i] = Long.toString(s.intervalsUs()[i] * permits);
            args[5 + 3 * i] = Long.toString(s.tolerancesUs()[i]);
            args[6 + 3 * i] = Long.toString(s.intervalsUs()[i]);
        }
        return args;
    }

    @Override
    public void close() {
        link.close();
    }

    @Override
    public String toString() {
        return "FleetLimiter['" + name + "', " + shape.limits() + "]";
    }

    /** Builds a {@link FleetLimiter}; at least one {@link #bandwidth} is required. */
    public static final class Builder {
        private final FleetSettings settings;
        private final String name;
        private final List<Limit> bandwidths = new ArrayList<>();
        private Clock clock = Clock.system();
        private Clock scriptClock;
        private Sleeper sleeper = Sleeper.system();
        private LimiterListener listener = LimiterListener.NONE;

        private Builder(FleetSettings settings, String name) {
            this.settings = Objects.requireNonNull(settings, "settings");
            this.name = Objects.requireNonNull(name, "name");
        }

        /** Adds a bandwidth every key is held to; a call is admitted only when all admit it. */
        public Builder bandwidth(Limit limit) {
            bandwidths.add(Objects.requireNonNull(limit, "bandwidth must not be null"));
            return this;
        }

        /** The node's clock (the breaker's, the fallback's, the waits'); default {@link Clock#system()}. Charges keep Redis's. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /**
         * Sends this clock's readings (floored to microseconds) as the time of every charge
         * instead of Redis's {@code TIME}: for tests on a manual clock, whose every node
         * reads the same clock. Default null: Redis's clock, the one clock of a fleet.
         */
        public Builder scriptClock(Clock scriptClock) {
            this.scriptClock = scriptClock;
            return this;
        }

        /** How {@link FleetLimiter#acquire} waits; default {@link Sleeper#system()}. */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
            return this;
        }

        /** Told every decision of this node's calls; default {@link LimiterListener#NONE}. */
        public Builder listener(LimiterListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener must not be null");
            return this;
        }

        /**
         * Connects (a Redis that is down is no error: calls answer node-local until it is
         * up) and, when the fleet's limit of this name was changed live, takes that limit
         * instead of the builder's bandwidths: one limit per fleet.
         */
        public FleetLimiter build() {
            if (bandwidths.size() > MAX_BANDWIDTHS_KEPT) {
                throw new IllegalArgumentException("a fleet limiter takes at most " + MAX_BANDWIDTHS_KEPT + " bandwidths, got "
                        + bandwidths.size());
            }
            FleetLimiter limiter = new FleetLimiter(this);
            if (limiter.link.ensureConnected()) {
                limiter.refresh();
            }
            return limiter;
        }
    }
}
