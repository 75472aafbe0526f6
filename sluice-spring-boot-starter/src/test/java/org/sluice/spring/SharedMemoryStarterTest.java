package org.sluice.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in the shared-memory scope ({@code shared-memory.yml}): the routes' buckets
 * in a real memory-mapped arena file of a temporary directory, servlet stack, with
 * several bandwidths per route and the meters, as in memory.
 */
@SpringBootTest(classes = TestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.config.name=shared-memory")
@DirtiesContext
class SharedMemoryStarterTest extends InMemoryContract {

    private static final Path DIR;

    static {
        try {
            DIR = Files.createTempDirectory("sluice-starter");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void arena(DynamicPropertyRegistry registry) {
        registry.add("sluice.limiter.shared-memory.file", () -> DIR.resolve("arena").toString());
    }

    @AfterAll
    static void removeTheArena() throws IOException {
        Files.deleteIfExists(DIR.resolve("arena"));
        Files.deleteIfExists(DIR);
    }
}
