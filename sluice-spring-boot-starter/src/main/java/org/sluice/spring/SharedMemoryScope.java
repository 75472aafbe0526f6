package org.sluice.spring;

import java.nio.file.Path;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.shm.SharedArena;

/**
 * The {@code shared-memory} scope: one arena file for every route, one table per route.
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

    KeyedLimit<String> limiter(String route, Limit limit, Clock clock) {
        return arena.limiter(route, slots, limit, clock);
    }

    @Override
    public void close() {
        arena.close();
    }
}
