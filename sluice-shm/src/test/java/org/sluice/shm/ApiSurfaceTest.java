package org.sluice.shm;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ApiDump;

/** Pins the public API of sluice-shm (org.sluice.shm) to {@code api/sluice-shm.api}. */
class ApiSurfaceTest {

    @Test
    void publicApiMatchesTheCheckedInDescription() throws Exception {
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        ApiDump.check(SharedArena.class, moduleDir.resolve("api/sluice-shm.api"));
    }
}
