package org.sluice.edge.delivery.broker;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.sluice.edge.threads.Threads;

/** The timers of a broker transport: daemon threads ({@link Threads}), named for what they do ({@code sluice-kafka-timer}). */
public final class BrokerThreads {

    private BrokerThreads() {
    }

    /** A timer of one daemon thread named {@code name}, for the sweeps of {@link AttemptsOut}; a cancelled task leaves its queue at once. */
    public static ScheduledThreadPoolExecutor timer(String name) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> Threads.daemon(r, name));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
