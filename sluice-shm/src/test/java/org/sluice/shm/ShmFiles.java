package org.sluice.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Unique arena files in the default directory (/dev/shm), removed by {@link #close()}. */
final class ShmFiles implements AutoCloseable {

    private final List<Path> made = new ArrayList<>();

    Path fresh() {
        Path p = SharedArena.defaultFile("sluice-test-" + UUID.randomUUID());
        made.add(p);
        return p;
    }

    @Override
    public void close() throws IOException {
        for (Path p : made) {
            Files.deleteIfExists(p);
        }
    }
}
