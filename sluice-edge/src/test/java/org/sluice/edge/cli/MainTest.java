package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.ChildJvm;

/** The CLI end to end, as a separate process: exit codes and what it prints. */
class MainTest {

    @TempDir
    Path dir;

    static final String GOOD = """
            node: {id: edge-1, data_dir: ./data}
            http: {listen: "127.0.0.1:0"}
            sources:
              open: {verify: {scheme: none}}
            """;

    @Test
    void checkConfigExitsZeroForAGoodFile() throws Exception {
        Path file = Files.writeString(dir.resolve("good.yaml"), GOOD);
        try (ChildJvm cli = ChildJvm.start(Main.class, "check-config", file.toString())) {
            assertThat(cli.waitFor(Duration.ofSeconds(60))).isZero();
            assertThat(cli.stdoutLines()).containsExactly(file + ": ok");
        }
    }

    @Test
    void checkConfigExitsOneAndPrintsEveryProblem() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.yaml"), """
                http: {listen: "127.0.0.1:0", colour: blue}
                rate_limits:
                  tenants:
                    acme: {rate: 5, burst: 0}
                """);
        try (ChildJvm cli = ChildJvm.start(Main.class, "check-config", file.toString())) {
            assertThat(cli.waitFor(Duration.ofSeconds(60))).isEqualTo(1);
            assertThat(cli.stderrLines()).contains("rate_limits.tenants.acme.burst must be an integer of at least 1, got 0");
            assertThat(cli.stderrLines()).anySatisfy(l -> assertThat(l).contains("http.colour"));
        }
    }

    @Test
    void serveRefusesABadConfigWithItsMessages() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.yaml"), "rate_limits: {tenants: {acme: {rate: 5, burst: 0}}}\n");
        try (ChildJvm cli = ChildJvm.start(Main.class, "serve", "--config", file.toString())) {
            assertThat(cli.waitFor(Duration.ofSeconds(60))).isEqualTo(1);
            assertThat(cli.stderrLines()).contains("rate_limits.tenants.acme.burst must be an integer of at least 1, got 0");
        }
    }

    @Test
    void versionPrintsTheVersion() {
        java.io.StringWriter out = new java.io.StringWriter();
        int code = new picocli.CommandLine(new Main()).setOut(new java.io.PrintWriter(out)).execute("version");
        assertThat(code).isZero();
        assertThat(out.toString()).startsWith("sluice ");
    }

    @Test
    void anUnknownCommandIsAUsageError() {
        assertThat(new picocli.CommandLine(new Main()).setErr(new java.io.PrintWriter(new java.io.StringWriter()))
                .execute("frobnicate")).isEqualTo(2);
    }

    @Test
    void theProcessTurnsNettysLeakDetectorOffUnlessTheJvmWasToldALevel() {
        java.util.Properties none = new java.util.Properties();
        assertThat(Main.processLeakDetection(none)).contains(io.netty.util.ResourceLeakDetector.Level.DISABLED);

        java.util.Properties asked = new java.util.Properties();
        asked.setProperty(Main.LEAK_DETECTION_LEVEL, "paranoid");
        assertThat(Main.processLeakDetection(asked)).isEmpty();

        java.util.Properties old = new java.util.Properties();
        old.setProperty(Main.NO_LEAK_DETECTION, "false");
        assertThat(Main.processLeakDetection(old)).isEmpty();
    }
}
