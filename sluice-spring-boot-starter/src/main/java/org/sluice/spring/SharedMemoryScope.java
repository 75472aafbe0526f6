package org.sluice.spring;

import java.nio.file.Path;
import java.util.List;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.core.LimiterListener;
import org.sluice.shm.SharedArena;
import org.sluice.shm.SharedLimiter;

/**
 * The {@code shared-memory} scope: one arena file for every route, one limiter (a table
 * per bandwidth) per route.
 * Its own class so that sluice-shm (an optional dependency) is only loaded when the scope
 * is chosen: its methods take and return core types only.
 */
final class SharedMemoryScope implements AutoCloseable {

    private final SharedArena arena;
    private final int slots;

    private SharedMemoryScope(SharedArena arena, int slots) {
        this.arena = arena;
        this.slots = slots;
    }

    static SharedMemoryScope open(SluiceLimiterProperties.SharedMemory settings) {
        Path file = settings.getFile() != null ? settings.getFile() : SharedArena.defaultFile("sluice-limiter");
        return new SharedMemoryScope(SharedArena.create(file, settings.getSizeBytes()), settings.getSlots());
    }

    /** The route's limiter of {@code limits}, telling {@code listener} (when not null) its decisions. */
    KeyedLimit<String> limiter(String route, List<Limit> limits, Clock clock, LimiterListener listener) {
        SharedLimiter.Builder builder = arena.limiter(route).slots(slots).clock(clock);
        limits.forEach(builder::bandwidth);
        if (listener != null) {
            builder.listener(listener);
        }
        return builder.build();
    }

    @Override
    public void close() {
        arena.close();
    }
}
