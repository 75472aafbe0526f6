package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.testkit.ChildJvm;

/** {@code sluice serve --forward-to}: the destinations it adds, the secret it makes, what it refuses. */
class ForwardToTest {

    static final Duration WAIT = Duration.ofSeconds(90);
    static final Pattern GENERATED = Pattern.compile("check them with: sluice receive --secret (whsec_\\S+)");

    @TempDir
    Path dir;

    @Test
    void theDestinationsGoThroughTheConfigurationsOwnReaderOnEverySource() throws Exception {
        Path file = Files.writeString(dir.resolve("c.yaml"), """
                sources:
                  a: {verify: {scheme: none}, deliver_to: [forward-1]}
                  b: {verify: {scheme: none}}
                destinations:
                  forward-1: {url: "http://127.0.0.1:4000/"}
                """);
        assertThat(ConfigLoader.load(file, Map.of()).destinations()).as("as written, without the flag")
                .containsOnlyKeys("forward-1");

        Forwarding forwarding = new Forwarding(List.of(URI.create("http://127.0.0.1:3000/"),
                URI.create("https://example.test/in")), ReceiveCommandTest.SECRET);
        SluiceConfig forwarded = ConfigLoader.load(file, Map.of(), forwarding);
        assertThat(forwarding.names()).as("a name in use is skipped").containsExactly("forward-2", "forward-3");
        assertThat(forwarded.destinations()).containsOnlyKeys("forward-1", "forward-2", "forward-3");
        assertThat(forwarded.sources().get("a").deliverTo()).containsExactly("forward-1", "forward-2", "forward-3");
        assertThat(forwarded.sources().get("b").deliverTo()).containsExactly("forward-2", "forward-3");

        Forwarding demo = new Forwarding(List.of(URI.create("http://127.0.0.1:3000/")), ReceiveCommandTest.SECRET);
        assertThat(ConfigLoader.loadDefault(Map.of(), demo).sources().get("demo").deliverTo()).containsExactly("forward-1");
        assertThat(ConfigLoader.loadDefault(Map.of()).destinations()).as("the embedded default, no flag").isEmpty();
        assertThat(ConfigLoader.loadDefault(Map.of()).sources().get("demo").deliverTo()).isEmpty();
    }

    @Test
    void withoutASecretItMakesOneAndPrintsItAndAReceiverGivenItVerifies() throws Exception {
        Path config = Files.writeString(dir.resolve("c.yaml"), """
                node: {data_dir: ./data}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  open: {verify: {scheme: none}}
                """);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        try (ChildJvm serve = ChildJvm.builder(Main.class).workingDirectory(dir)
                .args("serve", "--config", config.toString(), "--forward-to", "http://127.0.0.1:" + port + "/").start()) {
            Matcher secret = GENERATED.matcher(serve.awaitLine(l -> GENERATED.matcher(l).find(), WAIT));
            assertThat(secret.find()).isTrue();
            Matcher serving = QuickStartTest.SERVING.matcher(serve.awaitLine(l -> l.contains("serving on"), WAIT));
            assertThat(serving.find()).isTrue();
            try (ChildJvm receiver = ChildJvm.builder(Main.class).workingDirectory(dir)
                    .args("receive", "--listen", "127.0.0.1:" + port, "--secret", secret.group(1)).start()) {
                ReceiveCommandTest.awaitListening(receiver);
                HttpResponse<Void> accepted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + serving.group(1) + "/hooks/open"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).timeout(WAIT).build(),
                        HttpResponse.BodyHandlers.discarding());
                assertThat(accepted.statusCode()).isEqualTo(202);
                assertThat(receiver.awaitLine(l -> l.contains("source=open") && l.endsWith("-> 200"), WAIT))
                        .contains("verified");
            }
        }
    }

    @Test
    void aBadUrlIsAUsageError() {
        for (String bad : List.of("ftp://127.0.0.1/x", "127.0.0.1:3000", "http:///nohost")) {
            try (ChildJvm serve = ChildJvm.builder(Main.class).workingDirectory(dir).args("serve", "--forward-to", bad).start()) {
                assertThat(serve.waitFor(WAIT)).as(bad).isEqualTo(2);
                assertThat(String.join("\n", serve.stderrLines())).as(bad)
                        .contains("--forward-to must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:3000/,"
                                + " got \"" + bad + "\"");
            }
        }
    }

    @Test
    void aUrlTheDestinationReaderRefusesFailsTheBootWithItsMessage() {
        try (ChildJvm serve = ChildJvm.builder(Main.class).workingDirectory(dir)
                .args("serve", "--forward-to", "http://user:pass@127.0.0.1:3000/").start()) {
            assertThat(serve.waitFor(WAIT)).isEqualTo(1);
            assertThat(String.join("\n", serve.stderrLines()))
                    .contains("destinations.forward-1.url must be a URL without user info");
        }
    }

    @Test
    void aBadSecretIsAUsageErrorAndASecretAloneIsToo() {
        try (ChildJvm serve = ChildJvm.builder(Main.class).workingDirectory(dir)
                .args("serve", "--forward-to", "http://127.0.0.1:3000/", "--forward-secret", "not-a-secret").start()) {
            assertThat(serve.waitFor(WAIT)).isEqualTo(2);
            assertThat(String.join("\n", serve.stderrLines()))
                    .contains("--forward-secret must be whsec_ followed by the standard base64 of a key")
                    .doesNotContain("not-a-secret");
        }
        try (ChildJvm serve = ChildJvm.builder(Main.class).workingDirectory(dir)
                .args("serve", "--forward-secret", ReceiveCommandTest.SECRET).start()) {
            assertThat(serve.waitFor(WAIT)).isEqualTo(2);
            assertThat(String.join("\n", serve.stderrLines())).contains("--forward-secret needs --forward-to URL");
        }
    }

    @Test
    void aConfigurationWithoutSourcesHasNothingToForward() throws Exception {
        Path config = Files.writeString(dir.resolve("empty.yaml"), "node: {data_dir: ./data}\n");
        try (ChildJvm serve = ChildJvm.builder(Main.class).workingDirectory(dir)
                .args("serve", "--config", config.toString(), "--forward-to", "http://127.0.0.1:3000/").start()) {
            assertThat(serve.waitFor(WAIT)).isEqualTo(1);
            assertThat(serve.stderrLines()).contains(
                    "sluice: --forward-to: the configuration has no sources, so no hook would be forwarded");
        }
    }
}
