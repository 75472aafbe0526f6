package org.sluice.edge.delivery;

import java.time.Duration;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.core.RateLimiter;

/**
 * This node's own bucket for a destination: a {@code sluice-core} {@link RateLimiter} over
 * its {@code rate} and burst, asked once per attempt (a pass's announcement is not needed).
 */
final class LocalPacer implements Pacer {

    private final String name;
    private final RateLimiter limiter;
    private final double rate;

    LocalPacer(String name, Limit limit, Clock clock) {
        this.name = name;
        this.rate = limit.rate();
        this.limiter = RateLimiter.builder().limit(limit).clock(clock).sweepInterval(Duration.ZERO).build();
    }

    @Override
    public void beginPass(int wanted) {
    }

    @Override
    public long tryTake() {
        return limiter.tryAcquire(name);
    }

    @Override
    public void endPass() {
    }

    @Override
    public long tryTakeAtCommit() {
        return limiter.tryAcquire(name);
    }

    @Override
    public double perSecond() {
        return rate;
    }
}
