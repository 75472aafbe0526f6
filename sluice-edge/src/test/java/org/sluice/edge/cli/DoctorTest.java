package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.ChildJvm;

/** {@code sluice doctor} as a separate process: a clean bill, every problem with its fix, a bad config. */
class DoctorTest {

    static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void aGoodSetupHasNoProblems() throws Exception {
        Path config = Files.writeString(dir.resolve("good.yaml"), """
                node: {data_dir: ./data}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  open: {verify: {scheme: none}, deliver_to: [local]}
                destinations:
                  local: {url: "http://127.0.0.1:3000/"}
                """);
        try (ChildJvm doctor = doctor("--config", config.toString())) {
            assertThat(doctor.waitFor(WAIT)).as(String.join("\n", doctor.stdoutLines())).isZero();
            String out = String.join("\n", doctor.stdoutLines());
            assertThat(out).contains("ok    configuration " + config + " loads",
                    "ok    http.listen 127.0.0.1:0: the system picks a free port",
                    "http.transport auto: ",
                    "ok    node.data_dir ./data can be created in ",
                    "ok    destinations.local.url: 127.0.0.1 resolves to 127.0.0.1")
                    .doesNotContain("FAIL");
            assertThat(doctor.stdoutLines().get(doctor.stdoutLines().size() - 1)).startsWith("no problems");
        }
    }

    @Test
    void everyProblemIsListedWithItsFixAndTheExitCodeIsOne() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "x");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int closedPort = closed.getLocalPort();
            closed.close(); // nothing listens there now
            Path config = Files.writeString(dir.resolve("bad.yaml"), """
                    node: {data_dir: %s/data}
                    admin: {listen: "127.0.0.1:0"}
                    http: {listen: "127.0.0.1:%d"}
                    rate_limits: {scope: fleet}
                    fleet: {redis: "redis://127.0.0.1:%d"}
                    sources:
                      open: {verify: {scheme: none}, deliver_to: [nowhere, broker]}
                    destinations:
                      nowhere: {url: "http://no-such-host.invalid/in"}
                      broker: {type: kafka, bootstrap_servers: ["127.0.0.1:%d"], topic: hooks}
                    """.formatted(notADirectory, taken.getLocalPort(), closedPort, closedPort));
            try (ChildJvm doctor = doctor("--config", config.toString())) {
                assertThat(doctor.waitFor(WAIT)).isEqualTo(1);
                String out = String.join("\n", doctor.stdoutLines());
                assertThat(out).contains(
                        "FAIL  http.listen 127.0.0.1:" + taken.getLocalPort() + " cannot be bound",
                        "stop what listens there",
                        "FAIL  node.data_dir " + notADirectory + "/data: " + notADirectory + " is not a writable directory",
                        "FAIL  fleet.redis redis://127.0.0.1:" + closedPort + " does not answer",
                        "FAIL  destinations.nowhere.url: no-such-host.invalid does not resolve",
                        "FAIL  destinations.broker.bootstrap_servers 127.0.0.1:" + closedPort + " takes no connection",
                        "5 problems");
                assertThat(out.lines().filter(l -> l.startsWith("      fix: ")).count()).isGreaterThanOrEqualTo(5);
            }
        }
    }

    @Test
    void aConfigurationThatDoesNotLoadIsEveryProblemAndExitOne() throws Exception {
        Path config = Files.writeString(dir.resolve("broken.yaml"), "rate_limits: {tenants: {acme: {rate: 5, burst: 0}}}\n");
        try (ChildJvm doctor = doctor("--config", config.toString())) {
            assertThat(doctor.waitFor(WAIT)).isEqualTo(1);
            assertThat(doctor.stdoutLines()).contains(
                    "FAIL  configuration: rate_limits.tenants.acme.burst must be an integer of at least 1, got 0",
                    "1 problem");
        }
    }

    @Test
    void theTransportLineSaysWhatAutoPicksAndWhyIoUringWasRefused() throws Exception {
        Path config = Files.writeString(dir.resolve("auto.yaml"), """
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                """);
        // Netty's own switch refuses both native transports in the child: auto ends on NIO, saying why
        try (ChildJvm doctor = ChildJvm.builder(Main.class).workingDirectory(dir)
                .jvmArgs("-Dio.netty.transport.noNative=true").args("doctor", "--config", config.toString()).start()) {
            assertThat(doctor.waitFor(WAIT)).as(String.join("\n", doctor.stdoutLines())).isZero();
            String out = String.join("\n", doctor.stdoutLines());
            assertThat(out).contains("warn  http.transport auto: nio (auto: io_uring refused: ", "; epoll unavailable: ",
                    "      fix: none needed to run; for io_uring, act on the reason");
        }
        Path named = Files.writeString(dir.resolve("io_uring.yaml"), """
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0", transport: io_uring}
                """);
        try (ChildJvm doctor = ChildJvm.builder(Main.class).workingDirectory(dir)
                .jvmArgs("-Dio.netty.transport.noNative=true").args("doctor", "--config", named.toString()).start()) {
            assertThat(doctor.waitFor(WAIT)).isEqualTo(1);
            assertThat(String.join("\n", doctor.stdoutLines()))
                    .contains("FAIL  http.transport is io_uring, which cannot run here: ", "      fix: set http.transport: auto");
        }
    }

    private ChildJvm doctor(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "doctor";
        System.arraycopy(args, 0, all, 1, args.length);
        return ChildJvm.builder(Main.class).workingDirectory(dir).args(all).start();
    }
}
