package org.sluice.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link RateLimiter}'s refusal memo against a racing reset (its class comment, "Memory
 * ordering"): a refusal whose table read came before the reset's deletion must not answer
 * a call that the reset happens-before. The clock never moves and the limit is one token,
 * already taken, so only the reset can refill the bucket. The refuser charges, reads the
 * resetter's flag, and charges again: when the flag was seen (the reset finished before
 * the second charge) and the first charge was refused (so it came before the reset), the
 * second must be admitted; a stale memo would refuse it.
 */
@JCStressTest
@Description("A one-unit refusal (which writes the thread's memo) races a reset of the key")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "both charges before the reset took effect")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the reset landed between the charges, flag not yet set")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "refused before the reset, admitted after it")
@Outcome(id = {"0, 0, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "the reset came first: one admission, then a refusal")
@Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "a memo taken before the reset refused after it")
@Outcome(expect = FORBIDDEN, desc = "two admissions from one reset")
@State
public class RefusalMemoStress {

    static final String KEY = "tenant-a";

    final RateLimiter limiter = RateLimiter.builder()
            .limit(Limit.of(1, 1)).clock(() -> 0L).sweepInterval(Duration.ZERO).build();
    volatile int resetDone;

    public RefusalMemoStress() {
        limiter.tryAcquire(KEY); // the one token: taken
    }

    @Actor
    public void refuser(III_Result r) {
        r.r1 = limiter.tryAcquire(KEY) == 0L ? 0 : 1;
        r.r2 = resetDone;
        r.r3 = limiter.tryAcquire(KEY) == 0L ? 0 : 1;
    }

    @Actor
    public void resetter() {
        limiter.reset(KEY);
        resetDone = 1;
    }
}
