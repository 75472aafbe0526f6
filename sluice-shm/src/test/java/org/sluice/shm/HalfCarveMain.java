package org.sluice.shm;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A child for {@link MultiProcessTest}: takes the arena's file lock, writes half of a
 * directory entry for the name in args[1] (no READY mark), advances "top" as a real
 * carver does, prints "locked", and waits to be killed while holding the lock.
 */
public final class HalfCarveMain {

    private HalfCarveMain() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        byte[] name = args[1].getBytes(StandardCharsets.UTF_8);
        try (SharedArena arena = SharedArena.attach(file);
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.lock();
            ByteBuffer map = arena.mapping();
            int at = ArenaLayout.entryAt(0);
            map.putInt(at + ArenaLayout.E_KIND, ArenaLayout.KIND_RATE);
            map.putInt(at + ArenaLayout.E_NAME_LENGTH, name.length);
            map.put(at + ArenaLayout.E_NAME, name);
            long top = map.getLong(ArenaLayout.TOP_AT);
            map.putLong(ArenaLayout.TOP_AT, top + 4096);
            map.putLong(at + ArenaLayout.E_OFFSET, top);
            System.out.println("locked");
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
