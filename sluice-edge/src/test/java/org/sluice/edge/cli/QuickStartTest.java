package org.sluice.edge.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.testkit.ChildJvm;

/**
 * README's quick start, both halves, as a reader runs it: terminal 1 {@code sluice receive},
 * terminal 2 {@code sluice serve --forward-to}, the demo's signed hook, the receiver's
 * {@code verified} line; then a failing receiver ({@code --status 503}) makes a dead letter
 * that {@code sluice dead} lists and {@code sluice redeliver} brings to the receiver. Every
 * part is its own process. Two departures from the README, both so that the test can run
 * next to anything: the embedded default is copied with port 0 for its listeners, and
 * {@code logging.format: json} is added, whose line about the dead letter is checked too.
 */
class QuickStartTest {

    static final Duration WAIT = Duration.ofSeconds(90);
    /** README's secret; the test checks that README still shows the commands it runs. */
    static final String SECRET = "whsec_c2x1aWNlLXF1aWNrLXN0YXJ0";
    static final Path README = Path.of("..", "README.md");
    static final Pattern SERVING = Pattern.compile("serving on /127\\.0\\.0\\.1:(\\d+) \\(admin /127\\.0\\.0\\.1:(\\d+)\\)");
    static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void readmeShowsTheCommandsThisTestRuns() throws Exception {
        assertThat(Files.readString(README)).contains(
                "./sluice receive --secret " + SECRET + "\n",
                "./sluice serve --forward-to http://127.0.0.1:3000/ --forward-secret " + SECRET + "\n",
                "`./sluice receive --secret " + SECRET + " --status 503`",
                "./sluice dead ", "./sluice redeliver <the id from ./sluice dead>");
    }

    @Test
    void aHookGoesInAndComesOutVerifiedThenDiesAtAFailingReceiverAndIsRedelivered() throws Exception {
        String yaml = ConfigLoader.defaultYaml()
                .replace("listen: \"127.0.0.1:9090\"", "listen: \"127.0.0.1:0\"")
                .replace("listen: \"127.0.0.1:8080\"", "listen: \"127.0.0.1:0\"")
                + "logging:\n  format: json\n";
        Path config = Files.writeString(dir.resolve("quick-start.yaml"), yaml);
        HttpClient http = HttpClient.newHttpClient();

        ChildJvm receiver = cli("receive", "--listen", "127.0.0.1:0", "--secret", SECRET);
        URI receiverUrl = ReceiveCommandTest.awaitListening(receiver);
        try (ChildJvm serve = cli("serve", "--config", config.toString(), "--forward-to", receiverUrl.toString(),
                "--forward-secret", SECRET)) {
            Matcher serving = SERVING.matcher(serve.awaitLine(l -> SERVING.matcher(l).find(), WAIT));
            assertThat(serving.find()).isTrue();
            assertThat(serve.stdoutLines()).contains("sluice: forwarding every source's hooks to " + receiverUrl
                    + " (destination forward-1)");
            URI ingest = URI.create("http://127.0.0.1:" + serving.group(1));
            String admin = "http://127.0.0.1:" + serving.group(2);

            // the first half: in, then out, verified
            String first = accepted(http, ingest, "evt_1");
            assertThat(receiver.awaitLine(l -> l.contains("webhook-id=" + first), WAIT))
                    .contains("tenant=demo source=demo attempt=1").endsWith("verified -> 200");

            // a failing receiver on the same address: three attempts, then a dead letter
            receiver.terminate();
            receiver.waitFor(WAIT);
            receiver.close();
            receiver = cli("receive", "--listen", receiverUrl.getHost() + ":" + receiverUrl.getPort(), "--secret", SECRET,
                    "--status", "503");
            ReceiveCommandTest.awaitListening(receiver);
            String second = accepted(http, ingest, "evt_2");
            assertThat(receiver.awaitLine(l -> l.contains("webhook-id=" + second), WAIT)).endsWith("verified -> 503");
            JsonNode dead = awaitJsonLog(serve, "is dead at destination forward-1");
            assertThat(dead.get("level").asText()).isEqualTo("INFO");
            assertThat(dead.get("mdc").get("hook_id").asText()).isEqualTo(second);
            assertThat(dead.get("formattedMessage").asText()).contains(second, "max_attempts", "after attempt 3", "answered 503");

            ChildJvm deadList = admin(admin, "dead");
            assertThat(deadList.waitFor(WAIT)).isZero();
            assertThat(deadList.stdoutLines()).anySatisfy(l -> assertThat(l).startsWith(second).contains("forward-1",
                    "max_attempts", "503"));

            // the receiver comes back, and the dead letter is delivered again
            receiver.terminate();
            receiver.waitFor(WAIT);
            receiver.close();
            receiver = cli("receive", "--listen", receiverUrl.getHost() + ":" + receiverUrl.getPort(), "--secret", SECRET);
            ReceiveCommandTest.awaitListening(receiver);
            ChildJvm redeliver = admin(admin, "redeliver", second);
            assertThat(redeliver.waitFor(WAIT)).isZero();
            assertThat(redeliver.stdoutLines()).contains("redelivery scheduled: " + second + " to 1 destination");
            assertThat(receiver.awaitLine(l -> l.contains("webhook-id=" + second) && l.endsWith("-> 200"), WAIT))
                    .contains("verified");

            // what /metrics says about the process
            String metrics = http.send(HttpRequest.newBuilder(URI.create(admin + "/metrics")).timeout(WAIT).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).containsPattern("sluice_build_info\\{commit=\"[^\"]+\",version=\"[^\"]+\"} 1");
            assertThat(metrics).contains("process_uptime_seconds", "process_files_open_files", "jvm_memory_used_bytes");
        } finally {
            receiver.close();
        }
    }

    /** A {@code sluice} process logging through the shipped logback.xml, not the tests' quieter one. */
    private ChildJvm cli(String... args) {
        return ChildJvm.builder(Main.class).jvmArgs("-Dlogback.configurationFile=logback.xml").args(args)
                .workingDirectory(dir).start();
    }

    private ChildJvm admin(String admin, String... command) {
        List<String> args = new java.util.ArrayList<>(List.of(command));
        args.addAll(List.of("--admin", admin, "--data-dir", dir.resolve("sluice-data").toString()));
        return cli(args.toArray(String[]::new));
    }

    /** README's first curl line: a signed demo hook, 202, its id. */
    static String accepted(HttpClient http, URI ingest, String eventId) throws Exception {
        String body = "{\"id\":\"" + eventId + "\",\"type\":\"demo\"}";
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec("demo-secret".getBytes(UTF_8), "HmacSHA256"));
        String sig = HexFormat.of().formatHex(mac.doFinal(body.getBytes(UTF_8)));
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(ingest.resolve("/hooks/demo")).timeout(WAIT)
                .header("Content-Type", "application/json").header("X-Signature", "sha256=" + sig)
                .header("X-Event-Id", eventId).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        Matcher id = ID.matcher(answer.body());
        assertThat(id.find()).isTrue();
        return id.group(1);
    }

    /**
     * The first stderr line that is a JSON object whose message contains {@code text}. Every
     * line that starts like one must parse (the JVM itself may print a plain warning first).
     */
    static JsonNode awaitJsonLog(ChildJvm serve, String text) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (String line : serve.stderrLines()) {
                if (!line.startsWith("{")) {
                    continue;
                }
                JsonNode node = JSON.readTree(line); // throws on a line that is not one whole object
                if (node.path("formattedMessage").asText().contains(text)) {
                    return node;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no JSON log line containing '" + text + "' in " + serve.stderrLines());
    }
}
