package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.netio.TestTransport;
import org.sluice.edge.server.EdgeServer;
import org.sluice.testkit.ManualClock;
import picocli.CommandLine;

/** {@code sluice load} from its flags against a real edge: the JSON summary, the report, usage errors. */
class LoadCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private final Map<String, String> environment = new HashMap<>();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new Main()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
        LoadCommand load = cli.getSubcommands().get("load").getCommand();
        load.environment = environment::get;
        return cli.execute(args);
    }

    @Test
    void jsonSummaryParsesAndTheReportIsWritten() throws Exception {
        String yaml = """
                node: {id: cli-load, data_dir: "${DATA}"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  tenants:
                    acme: {rate: 1, burst: 3}
                sources:
                  demo:
                    tenant: acme
                    verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", secrets: ["s3cret"]}
                    dedupe: {header: X-Event-Id}
                """;
        EdgeServer server = EdgeServer.builder(
                TestTransport.apply(ConfigLoader.parse(yaml, Map.of("DATA", dir.resolve("data").toString()), "test")))
                .clock(new ManualClock(1_000_000_000_000L)).start();
        try {
            Path report = dir.resolve("r.html");
            int code = run("load", "--url", "http://127.0.0.1:" + server.ingestAddress().getPort() + "/hooks",
                    "--source", "demo", "--scheme", "hmac", "--secret", "s3cret", "--rate", "20", "--duration", "1s",
                    "--connections", "2", "--body-bytes", "100", "--report", report.toString(), "--json");
            assertThat(code).as(err.toString()).isZero();
            JsonNode s = new ObjectMapper().readTree(out.toString());
            assertThat(s.get("sent").asLong()).isEqualTo(20);
            assertThat(s.at("/status/202").asLong()).isEqualTo(3);
            assertThat(s.at("/status/429").asLong()).isEqualTo(17);
            assertThat(s.at("/refused_by_scope/tenant").asLong()).isEqualTo(17);
            assertThat(s.get("not_sent").asLong()).isZero();
            for (String key : new String[] {"p50", "p90", "p99", "p999", "max"}) {
                assertThat(s.get("latency_ms").has(key)).as(key).isTrue();
            }
            assertThat(s.has("duration_s")).isTrue();
            assertThat(s.get("offered_rate").asLong()).isEqualTo(20);
            assertThat(s.has("achieved_rate")).isTrue();
            assertThat(err.toString()).contains("sent 20").contains("report written to");
            assertThat(Files.readString(report)).contains("uPlot").contains("\"sent\":20");
        } finally {
            server.close();
        }
    }

    /** Issue 46, point 10: the secret could only be given as a flag, visible to every user in ps. */
    @Test
    void theSecretComesFromAFileOrTheEnvironmentInsteadOfTheCommandLine() throws Exception {
        String yaml = """
                node: {id: cli-load, data_dir: "${DATA}"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  demo:
                    tenant: acme
                    verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", secrets: ["s3cret"]}
                """;
        EdgeServer server = EdgeServer.builder(
                TestTransport.apply(ConfigLoader.parse(yaml, Map.of("DATA", dir.resolve("data").toString()), "test")))
                .clock(new ManualClock(1_000_000_000_000L)).start();
        try {
            String url = "http://127.0.0.1:" + server.ingestAddress().getPort() + "/hooks";
            Path file = Files.writeString(dir.resolve("secret"), "s3cret\n");
            assertThat(run("load", "--url", url, "--source", "demo", "--scheme", "hmac", "--secret-file", file.toString(),
                    "--rate", "5", "--duration", "1s", "--connections", "1", "--json")).as(err.toString()).isZero();
            assertThat(new ObjectMapper().readTree(out.toString()).at("/status/202").asLong()).isEqualTo(5);

            out.getBuffer().setLength(0);
            environment.put(LoadCommand.SECRET_ENV, "s3cret");
            assertThat(run("load", "--url", url, "--source", "demo", "--scheme", "hmac",
                    "--rate", "5", "--duration", "1s", "--connections", "1", "--json")).as(err.toString()).isZero();
            assertThat(new ObjectMapper().readTree(out.toString()).at("/status/202").asLong()).isEqualTo(5);
        } finally {
            server.close();
        }
    }

    @Test
    void aMissingUnreadableOrTwiceGivenSecretIsAUsageErrorThatNeverPrintsIt() throws Exception {
        String[] base = {"load", "--url", "http://127.0.0.1:1/hooks", "--source", "demo", "--scheme", "hmac",
                "--rate", "10", "--duration", "1s"};
        assertThat(run(base)).isEqualTo(2);
        assertThat(err.toString()).contains("the source's secret is missing: give --secret-file FILE or set $SLUICE_LOAD_SECRET");

        Path missing = dir.resolve("no-such-secret");
        assertThat(run(concat(base, "--secret-file", missing.toString()))).isEqualTo(2);
        assertThat(err.toString()).contains("--secret-file " + missing + " cannot be read: NoSuchFileException");

        Path file = Files.writeString(dir.resolve("secret"), "hush-hush-value");
        assertThat(run(concat(base, "--secret-file", file.toString(), "--secret", "other"))).isEqualTo(2);
        assertThat(err.toString()).contains("--secret-file and --secret name the secret twice: give one")
                .doesNotContain("hush-hush-value");
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    @Test
    void badFlagsAreAUsageErrorNamingTheFlag() {
        int code = run("load", "--url", "http://127.0.0.1:1/hooks", "--source", "demo", "--scheme", "md5",
                "--secret", "s", "--rate", "0", "--duplicates", "1.5");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString())
                .contains("--scheme must be one of hmac, github, stripe, standard_webhooks, got \"md5\"")
                .contains("--rate must be from 1 to 1000000000 requests per second, got 0")
                .contains("--duplicates must be a probability from 0 to 1, got 1.5");
    }

    @Test
    void aStandardWebhooksSecretThatIsNotBase64IsAUsageErrorWithTheSecretRedacted() {
        int code = run("load", "--url", "http://127.0.0.1:1/hooks", "--source", "demo", "--scheme", "standard_webhooks",
                "--secret", "whsec_not*base64", "--rate", "10", "--duration", "1s");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString())
                .contains("--secret must be base64 after an optional \"whsec_\" prefix for --scheme standard_webhooks, got a 16-character value (redacted)")
                .doesNotContain("not*base64");
    }

    @Test
    void nothingListeningIsExitOne() {
        int code = run("load", "--url", "http://127.0.0.1:1/hooks", "--source", "demo", "--scheme", "github",
                "--secret", "s", "--rate", "10", "--duration", "1s", "--connections", "1");
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("cannot connect to http://127.0.0.1:1/hooks");
    }
}
