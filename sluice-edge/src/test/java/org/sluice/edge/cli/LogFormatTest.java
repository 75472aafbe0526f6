package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.config.LoggingConfig;
import org.sluice.testkit.ChildJvm;

/** {@code logging.format} through the shipped logback.xml, in a real {@code sluice serve} process. */
class LogFormatTest {

    static final Duration WAIT = Duration.ofSeconds(90);
    static final String CONFIG = """
            node: {data_dir: ./data}
            admin: {listen: "127.0.0.1:0"}
            http: {listen: "127.0.0.1:0"}
            sources:
              open: {verify: {scheme: none}}
            """;

    @TempDir
    Path dir;

    @Test
    void aTextLineStartsWithTheDateTheTimeAndTheZone() throws Exception {
        Path config = Files.writeString(dir.resolve("text.yaml"), CONFIG);
        try (ChildJvm serve = serve(config)) {
            serve.awaitLine(l -> l.contains("serving on"), WAIT);
            String started = awaitStderr(serve, "sluice-edge started");
            assertThat(started).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2})"
                    + " INFO  \\[main] EdgeServer - sluice-edge started: .*");
        }
    }

    @Test
    void aJsonLineIsOneObjectWithTheFormattedMessage() throws Exception {
        Path config = Files.writeString(dir.resolve("json.yaml"), CONFIG + "logging: {format: json}\n");
        try (ChildJvm serve = serve(config)) {
            serve.awaitLine(l -> l.contains("serving on"), WAIT);
            JsonNode started = QuickStartTest.awaitJsonLog(serve, "sluice-edge started: ingest /127.0.0.1:");
            assertThat(started.get("level").asText()).isEqualTo("INFO");
            assertThat(started.get("loggerName").asText()).isEqualTo("org.sluice.edge.server.EdgeServer");
            assertThat(started.get("timestamp").asLong()).isPositive();
            assertThat(started.get("mdc").isObject()).isTrue();
        }
    }

    @Test
    void theKeyTakesTextOrJsonOnly() throws Exception {
        assertThat(ConfigLoader.parse("").logging().format()).isEqualTo(LoggingConfig.Format.TEXT);
        assertThat(ConfigLoader.parse("logging: {format: json}").logging().format()).isEqualTo(LoggingConfig.Format.JSON);
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "logging: {format: xml}\n");
        assertThat(ConfigLoader.check(bad, Map.of())).containsExactly("logging.format must be one of text, json, got \"xml\"");
    }

    /** The first stderr line containing {@code text}, once the child's reader has it. */
    static String awaitStderr(ChildJvm child, String text) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (String line : child.stderrLines()) {
                if (line.contains(text)) {
                    return line;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no stderr line containing '" + text + "' in " + child.stderrLines());
    }

    private ChildJvm serve(Path config) {
        return ChildJvm.builder(Main.class).jvmArgs("-Dlogback.configurationFile=logback.xml").workingDirectory(dir)
                .args("serve", "--config", config.toString()).start();
    }
}
