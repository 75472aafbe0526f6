package org.sluice.edge.delivery.broker;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The threads of a broker transport: daemons, named for what they do ({@code sluice-kafka-timer}). */
public final class BrokerThreads {

    private BrokerThreads() {
    }

    /** A daemon thread named {@code name} that runs {@code r}. */
    public static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** A timer of one daemon thread named {@code name}, for the sweeps of {@link AttemptsOut}; a cancelled task leaves its queue at once. */
    public static ScheduledThreadPoolExecutor timer(String name) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> daemon(r, name));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
