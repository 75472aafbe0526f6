package org.sluice.fleet;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ApiDump;

/** Pins the public API of sluice-fleet (the public types of org.sluice.fleet) to {@code api/sluice-fleet.api}. */
class ApiSurfaceTest {

    @Test
    void publicApiMatchesTheCheckedInDescription() throws Exception {
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        ApiDump.check(FleetClient.class, moduleDir.resolve("api/sluice-fleet.api"));
    }
}
