package org.sluice.fleet;

import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.Probe;
import org.sluice.core.Sleeper;

/**
 * sluice-core's {@link KeyedLimit} at fleet scope: one limit per key for every node that
 * names the same limiter, held in Redis by one script call per charge ({@code limit.lua}).
 *
 * <pre>
 * FleetLimiter perTenant = FleetLimiter.start(FleetSettings.defaults().withRedis(uri), "api",
 *         List.of(Limit.of(100, 100), Limit.of(1000 / 60.0, 1000)));
 * // was: KeyedLimiter.&lt;String&gt;builder().bandwidth(...).bandwidth(...).build();
 * long wait = perTenant.tryAcquire("tenant-a", 1);
 * </pre>
 *
 * <h2>Semantics</h2>
 * Every bandwidth of a key is one Redis key holding its GCRA time in microseconds; the
 * script charges all of them or none, atomically, at Redis's clock ({@code TIME}), so the
 * nodes' clocks need not agree. Limits whose interval is a whole number of microseconds
 * are exact. A key's Redis keys expire when its buckets are full again.
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

    private final FleetSettings settings;
    private final String name;
    private final List<Limit> bandwidths;
    private final long[] intervalsUs;
    private final long[] tolerancesUs;
    private final long maxPermits;
    private final RedisLink link;
    private final CircuitBreaker breaker;
    private final KeyedLimiter<String> local;
    /** Readings of this clock are sent as "now" instead of Redis TIME: tests on a manual clock only. */
    private final Clock scriptClock;
    private final Clock clock;
    private final Sleeper sleeper;
    private final LongAdder fallbacks = new LongAdder();

    private FleetLimiter(FleetSettings settings, String name, List<Limit> bandwidths, Clock clock, Clock scriptClock,
            Sleeper sleeper) {
        this.settings = settings;
        this.clock = clock;
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.name = Keys.checkId("name", name);
        this.bandwidths = List.copyOf(bandwidths);
        if (this.bandwidths.isEmpty()) {
            throw new IllegalArgumentException("bandwidths must hold at least one limit, got none");
        }
        int n = this.bandwidths.size();
        this.intervalsUs = new long[n];
        this.tolerancesUs = new long[n];
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Limit bw = this.bandwidths.get(i);
            intervalsUs[i] = FleetGcra.micros(1, bw.rate());
            tolerancesUs[i] = FleetGcra.micros(bw.burst(), bw.rate());
            smallest = Math.min(smallest, bw.burst());
        }
        this.maxPermits = smallest;
        this.scriptClock = scriptClock;
        this.breaker = new CircuitBreaker(clock, settings.breakerFailureRate(), settings.breakerMinCalls(),
                TimeUnit.MILLISECONDS.toNanos(settings.breakerWindowMs()),
                TimeUnit.MILLISECONDS.toNanos(settings.breakerOpenMs()));
        KeyedLimiter.Builder<String> b = KeyedLimiter.<String>builder().clock(clock);
        this.bandwidths.forEach(b::bandwidth);
        this.local = b.build();
        this.link = new RedisLink(settings);
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
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(bandwidths, "bandwidths");
        FleetLimiter limiter = new FleetLimiter(settings, name, bandwidths, Objects.requireNonNull(clock, "clock"), scriptClock,
                sleeper);
        limiter.link.ensureConnected();
        return limiter;
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
            ch.keys().del(keysOf(key)).get(settings.timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the keys expire by themselves once full: a reset Redis did not take is only late
        }
    }

    @Override
    public List<Limit> bandwidths() {
        return bandwidths;
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

    /** Calls answered node-local since start: Redis failed, ran out of budget, or the breaker was open. */
    public long fallbacks() {
        return fallbacks.sum();
    }

    public BreakerState breakerState() {
        return breaker.state();
    }

    private long charge(String key, long permits, Probe probe) {
        String[] keys = keysOf(key);
        if (permits < 1 || permits > maxPermits) {
            throw new IllegalArgumentException("permits must be from 1 to the smallest burst of the limiter's bandwidths ("
                    + maxPermits + "), got " + permits);
        }
        int permit = breaker.acquire();
        RedisLink.Channel ch = permit == CircuitBreaker.DENIED ? null : link.requests();
        if (ch == null) {
            if (permit != CircuitBreaker.DENIED) {
                breaker.onResult(permit, true);
            }
            return fallBack(key, permits, probe);
        }
        List<Long> reply;
        try {
            reply = LIMIT.<List<Long>>eval(ch, ScriptOutputType.MULTI, keys, arguments(permits))
                    .get(settings.timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            breaker.onResult(permit, true);
            return fallBack(key, permits, probe);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            breaker.onResult(permit, true);
            return fallBack(key, permits, probe);
        }
        breaker.onResult(permit, false);
        long wait = reply.get(0) * 1000;
        if (probe != null) {
            long remaining = Long.MAX_VALUE;
            long reset = 0L;
            for (int i = 0; i < intervalsUs.length; i++) {
                long debt = Math.max(0L, reply.get(i + 1));
                long room = tolerancesUs[i] - debt;
                remaining = Math.min(remaining, room > 0 ? room / intervalsUs[i] : 0L);
                reset = Math.max(reset, debt * 1000);
            }
            probe.set(wait == 0L, remaining, wait, reset);
        }
        return wait;
    }

    private long fallBack(String key, long permits, Probe probe) {
        fallbacks.increment();
        return probe == null ? local.tryAcquire(key, permits) : (local.tryAcquire(key, permits, probe) ? 0L : probe.waitNanos());
    }

    private String[] keysOf(String key) {
        String tag = "sluice:{l:" + name + ":" + Keys.checkId("key", key) + "}:";
        String[] keys = new String[intervalsUs.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = tag + i;
        }
        return keys;
    }

    private String[] arguments(long permits) {
        String[] args = new String[1 + 2 * intervalsUs.length];
        args[0] = scriptClock == null ? "" : Long.toString(Math.floorDiv(scriptClock.nanoTime(), 1000L));
        for (int i = 0; i < intervalsUs.length; i++) {
            args[1 + 2 * i] = Long.toString(intervalsUs[i] * permits);
            args[2 + 2 * i] = Long.toString(tolerancesUs[i]);
        }
        return args;
    }

    @Override
    public void close() {
        link.close();
    }

    @Override
    public String toString() {
        return "FleetLimiter['" + name + "', " + bandwidths + "]";
    }
}
