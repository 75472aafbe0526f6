package org.sluice.edge.intake;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's global queue occupancy: hooks and body bytes held in the batchers, queued
 * or in flight, reserved at submit and released when the hook is answered.
 *
 * <p>Lock-free. Each counter only moves by {@link #tryAdd}'s compare-and-swap (reserve)
 * or an atomic add (release), so a counter never passes its maximum through a
 * reservation; the one exception is deliberate: a counter at zero takes any single
 * reservation, so one hook larger than {@code max_queue_bytes} is taken when the node
 * holds nothing else. Hooks are reserved before bytes; when the bytes refuse, the hook
 * is given back, so for an instant the hook count can read one high and refuse a
 * concurrent submit that would have fit: the error is on the safe side.
 */
final class Reservations {

    final AtomicLong hooks = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    private final long maxHooks;
    private final long maxBytes;

    Reservations(long maxHooks, long maxBytes) {
        this.maxHooks = maxHooks;
        this.maxBytes = maxBytes;
    }

    /** Reserves one hook of {@code size} bytes, or reserves nothing and returns false. */
    boolean reserve(long size) {
        if (!tryAdd(hooks, 1, maxHooks)) {
            return false;
        }
        if (!tryAdd(bytes, size, maxBytes)) {
            hooks.addAndGet(-1);
            return false;
        }
        return true;
    }

    void release(long size) {
        bytes.addAndGet(-size);
        hooks.addAndGet(-1);
    }

    /** The one CAS-retry loop: adds {@code delta} unless that passes {@code max} (a counter at zero takes any delta). */
    static boolean tryAdd(AtomicLong counter, long delta, long max) {
        while (true) {
            long current = counter.get();
            long next = current + delta;
            if (next > max && current != 0) {
                return false;
            }
            if (counter.compareAndSet(current, next)) {
                return true;
            }
        }
    }
}
