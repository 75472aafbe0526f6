package org.sluice.fleet;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;

/**
 * Fallback counters, the "last call failed" flag per kind, and the warning that is logged
 * at most once a minute while answers are node-local. Lock-free: {@link LongAdder}s,
 * volatile flags, one CAS on the last-warning time.
 */
final class Health {

    private static final Logger LOG = LoggerFactory.getLogger("org.sluice.fleet");
    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    private final Clock clock;
    private final LongAdder[] byKind = {new LongAdder(), new LongAdder()};
    private final LongAdder[] byReason = {new LongAdder(), new LongAdder(), new LongAdder()};
    private final LongAdder storeCalls = new LongAdder();
    private volatile boolean rateLimitFailed;
    private volatile boolean dedupeFailed;
    private final AtomicLong lastWarn = new AtomicLong();
    private final AtomicBoolean warned = new AtomicBoolean();

    public Health(Clock clock) {
        this.clock = clock;
    }

    public void storeCall() {
        storeCalls.increment();
    }

    /** A call for these kinds finished; {@code failed} says whether it was answered node-local. */
    public void outcome(boolean rate, boolean dedupe, boolean failed) {
        if (rate && rateLimitFailed != failed) {
            rateLimitFailed = failed;
        }
        if (dedupe && dedupeFailed != failed) {
            dedupeFailed = failed;
        }
    }

    /** Counts one node-local answer for these kinds and maybe logs the warning. */
    public void fallback(boolean rate, boolean dedupe, FleetAnswer.Reason reason, String breaker) {
        count(rate, dedupe, reason);
        maybeWarn(reason, breaker);
    }

    /**
     * Counts one hook the store failed alone (a key of the wrong type, a value the script
     * did not write: {@code detail} is the store's message) as an {@code ERROR} fallback
     * for its kinds, and maybe logs it (the same once-a-minute warning).
     */
    public void refused(boolean rate, boolean dedupe, String detail) {
        count(rate, dedupe, FleetAnswer.Reason.ERROR);
        if (mayWarn()) {
            LOG.warn("fleet store failed one admission ({}): that hook is admitted on this node's limits alone; "
                    + "fallbacks so far: rate_limit={}, dedupe={}",
                    detail, fallbacks(FleetKind.RATE_LIMIT), fallbacks(FleetKind.DEDUPE));
        }
    }

    private void count(boolean rate, boolean dedupe, FleetAnswer.Reason reason) {
        if (rate) {
            byKind[FleetKind.RATE_LIMIT.ordinal()].increment();
        }
        if (dedupe) {
            byKind[FleetKind.DEDUPE.ordinal()].increment();
        }
        byReason[reason.ordinal()].increment();
    }

    private void maybeWarn(FleetAnswer.Reason reason, String breaker) {
        if (mayWarn()) {
            LOG.warn("fleet store unavailable ({}), breaker {}: hooks are admitted on this node's limits alone; "
                    + "fallbacks so far: rate_limit={}, dedupe={}",
                    reason.label(), breaker, fallbacks(FleetKind.RATE_LIMIT), fallbacks(FleetKind.DEDUPE));
        }
    }

    /** True for the first warning and then at most once a minute (one CAS decides who logs). */
    private boolean mayWarn() {
        long now = clock.nanoTime();
        boolean log;
        if (!warned.get()) {
            log = warned.compareAndSet(false, true);
            if (log) {
                lastWarn.set(now);
            }
        } else {
            long last = lastWarn.get();
            log = now - last >= WARN_EVERY_NANOS && lastWarn.compareAndSet(last, now);
        }
        return log;
    }

    public boolean lastCallFailed(FleetKind kind) {
        return kind == FleetKind.RATE_LIMIT ? rateLimitFailed : dedupeFailed;
    }

    public long fallbacks(FleetKind kind) {
        return byKind[kind.ordinal()].sum();
    }

    public long fallbacks(FleetAnswer.Reason reason) {
        return byReason[reason.ordinal()].sum();
    }

    public long storeCalls() {
        return storeCalls.sum();
    }
}
