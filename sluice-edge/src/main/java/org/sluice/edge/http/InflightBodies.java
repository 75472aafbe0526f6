package org.sluice.edge.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's bound on body bytes held by requests in flight ({@code http.max_inflight_body_bytes}),
 * shared by every event loop; read as the gauge {@code sluice_http_inflight_body_bytes}.
 *
 * <p>What is counted: the capacity of every body buffer {@link BodyAggregator} has allocated,
 * from a body's first buffer until its hook is answered ({@link HookHandler}), or until the
 * request is refused, cut by the read timeout, or its connection closes. A buffer only grows
 * as bytes arrive, so a request that declares a large body and sends nothing holds its first
 * buffer only ({@link BodyAggregator#INITIAL_CAPACITY} at most).
 *
 * <p>Invariant: {@code held <= max} at every instant. {@link #tryHold} is the only way up, a
 * compare-and-swap that never passes the bound; {@link #release} only goes down. Whoever
 * held bytes releases exactly as many, once.
 */
public final class InflightBodies {

    private final long max;
    private final AtomicLong held = new AtomicLong();

    public InflightBodies(long max) {
        this.max = max;
    }

    /** True when {@code bytes} more would fit now (a check before the body: nothing is held). */
    boolean hasRoom(long bytes) {
        return held.get() + bytes <= max;
    }

    /** Holds {@code bytes} more when they fit under the bound; false (nothing held) when they do not. */
    boolean tryHold(long bytes) {
        long now = held.get();
        for (;;) {
            if (now + bytes > max) {
                return false;
            }
            long seen = held.compareAndExchange(now, now + bytes);
            if (seen == now) {
                return true;
            }
            now = seen;
        }
    }

    void release(long bytes) {
        if (bytes != 0) {
            held.addAndGet(-bytes);
        }
    }

    public long held() {
        return held.get();
    }

    long max() {
        return max;
    }
}
