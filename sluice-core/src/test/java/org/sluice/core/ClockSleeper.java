package org.sluice.core;

import java.util.ArrayList;
import java.util.List;

/** A sleeper that moves a {@link TestClock} by every wait it is asked for, and keeps the waits in order. */
final class ClockSleeper implements Sleeper {

    final List<Long> sleeps = new ArrayList<>();
    private final TestClock clock;

    ClockSleeper(TestClock clock) {
        this.clock = clock;
    }

    @Override
    public void sleepNanos(long nanos) {
        sleeps.add(nanos);
        clock.advanceNanos(nanos);
    }
}
