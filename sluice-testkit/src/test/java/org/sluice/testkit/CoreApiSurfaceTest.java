package org.sluice.testkit;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.sluice.core.RateLimiter;

/**
 * Pins the public API of sluice-core to {@code sluice-core/api/sluice-core.api}. It lives
 * here, not in sluice-core, because sluice-core cannot depend on the testkit (the testkit
 * depends on it); the testkit is the first module built after it.
 */
class CoreApiSurfaceTest {

    @Test
    void publicApiMatchesTheCheckedInDescription() throws Exception {
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolveSibling("sluice-core");
        ApiDump.check(RateLimiter.class, moduleDir.resolve("api/sluice-core.api"));
    }
}
