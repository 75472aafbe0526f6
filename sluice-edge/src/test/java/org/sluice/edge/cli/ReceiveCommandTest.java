package org.sluice.edge.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ChildJvm;

/** {@code sluice receive} as a separate process on a real socket: what it prints, answers and refuses. */
class ReceiveCommandTest {

    static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString("receive-test-key".getBytes(UTF_8));
    static final Duration WAIT = Duration.ofSeconds(60);
    static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+/)");

    static URI awaitListening(ChildJvm receiver) {
        Matcher m = LISTENING.matcher(receiver.awaitLine(l -> LISTENING.matcher(l).find(), WAIT));
        assertThat(m.find()).isTrue();
        return URI.create(m.group(1));
    }

    @Test
    void printsOneLinePerRequestWithItsSignatureAndAnswersAsTold() throws Exception {
        try (ChildJvm receiver = ChildJvm.start(Main.class, "receive", "--listen", "127.0.0.1:0", "--secret", SECRET,
                "--status", "202")) {
            URI url = awaitListening(receiver);
            HttpClient http = HttpClient.newHttpClient();

            String body = "{\"n\":1}";
            long now = System.currentTimeMillis() / 1000;
            HttpResponse<Void> signed = http.send(delivery(url, "hook-1", now, body)
                    .header("webhook-signature", "v1," + sign(SECRET, "hook-1", now, body)).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(signed.statusCode()).isEqualTo(202);
            assertThat(receiver.awaitLine(l -> l.contains("webhook-id=hook-1"), WAIT))
                    .contains("tenant=acme source=gh attempt=1 7 bytes verified -> 202")
                    .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}([+-]\\d{2}:\\d{2}|Z) POST /in .*");

            http.send(delivery(url, "hook-2", now, body)
                    .header("webhook-signature", "v1," + sign(SECRET, "hook-2", now, "{\"n\":2}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(receiver.awaitLine(l -> l.contains("webhook-id=hook-2"), WAIT)).contains("bad (no_match) -> 202");

            http.send(delivery(url, "hook-3", now, body).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(receiver.awaitLine(l -> l.contains("webhook-id=hook-3"), WAIT)).contains("unsigned -> 202");
        }
    }

    @Test
    void withoutASecretASignatureIsUncheckedAndFailRateOneAnswers503() throws Exception {
        try (ChildJvm receiver = ChildJvm.start(Main.class, "receive", "--listen", "127.0.0.1:0", "--fail-rate", "1")) {
            URI url = awaitListening(receiver);
            long now = System.currentTimeMillis() / 1000;
            HttpResponse<Void> answer = HttpClient.newHttpClient().send(delivery(url, "hook-9", now, "{}")
                    .header("webhook-signature", "v1," + sign(SECRET, "hook-9", now, "{}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(receiver.awaitLine(l -> l.contains("webhook-id=hook-9"), WAIT)).contains("unchecked -> 503");
        }
    }

    @Test
    void aPortInUseExitsOneSayingSo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ChildJvm receiver = ChildJvm.start(Main.class, "receive", "--listen", "127.0.0.1:" + taken.getLocalPort())) {
            assertThat(receiver.waitFor(WAIT)).isEqualTo(1);
            assertThat(String.join("\n", receiver.stderrLines()))
                    .contains("sluice receive: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": the address is in use");
        }
    }

    @Test
    void aSecretThatIsNotWhsecBase64IsAUsageErrorThatDoesNotPrintIt() {
        try (ChildJvm receiver = ChildJvm.start(Main.class, "receive", "--listen", "127.0.0.1:0", "--secret", "hunter2!!")) {
            assertThat(receiver.waitFor(WAIT)).isEqualTo(2);
            String err = String.join("\n", receiver.stderrLines());
            assertThat(err).contains("--secret must be whsec_ followed by the standard base64 of a key")
                    .contains("a value of 9 characters (not printed)").doesNotContain("hunter2");
        }
    }

    @Test
    void badListenStatusFailRateAndDelayAreUsageErrors() {
        String[][] cases = {
                {"--listen", "3000", "--listen must be HOST:PORT"},
                {"--status", "99", "--status must be an HTTP status from 100 to 599, got 99"},
                {"--fail-rate", "1.5", "--fail-rate must be a fraction from 0 to 1, got 1.5"},
                {"--delay", "soon", "--delay must be a whole number of ms or s, e.g. 50ms or 2s, got \"soon\""},
        };
        for (String[] c : cases) {
            try (ChildJvm receiver = ChildJvm.start(Main.class, "receive", c[0], c[1])) {
                assertThat(receiver.waitFor(WAIT)).as(c[0]).isEqualTo(2);
                assertThat(String.join("\n", receiver.stderrLines())).as(c[0]).contains(c[2]);
            }
        }
    }

    static HttpRequest.Builder delivery(URI receiver, String id, long timestamp, String body) {
        return HttpRequest.newBuilder(receiver.resolve("/in")).timeout(WAIT)
                .header("webhook-id", id).header("webhook-timestamp", Long.toString(timestamp))
                .header("sluice-tenant", "acme").header("sluice-source", "gh").header("sluice-attempt", "1")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    /** Standard Webhooks v1, written out here rather than taken from the code under test. */
    static String sign(String secret, String id, long timestamp, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
        return Base64.getEncoder().encodeToString(mac.doFinal((id + "." + timestamp + "." + body).getBytes(UTF_8)));
    }
}
