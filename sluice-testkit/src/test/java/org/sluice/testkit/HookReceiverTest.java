package org.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.HookReceiver.Answer;
import org.sluice.testkit.HookReceiver.Received;

class HookReceiverTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ManualClock clock = new ManualClock(1_000L);
    private HookReceiver receiver;
    private HttpClient client;

    @BeforeEach
    void start() {
        receiver = HookReceiver.start(clock);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();
    }

    @AfterEach
    void stop() {
        receiver.close();
    }

    private HttpRequest post(String path, String body) {
        return HttpRequest.newBuilder(receiver.uri(path)).timeout(WAIT)
                .header("Webhook-Id", "msg_1").header("x-multi", "a").header("x-multi", "b")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void recordsMethodPathHeadersBodyArrivalAndConnection() throws Exception {
        assertThat(send(post("/hooks/a?x=1", "{\"n\":1}")).statusCode()).isEqualTo(200);
        clock.advanceNanos(500);
        assertThat(send(post("/hooks/b", "second")).statusCode()).isEqualTo(200);

        List<Received> got = receiver.awaitRequests(2, WAIT);
        Received first = got.get(0);
        assertThat(first.method()).isEqualTo("POST");
        assertThat(first.path()).isEqualTo("/hooks/a?x=1");
        assertThat(first.header("WEBHOOK-ID")).isEqualTo("msg_1");
        assertThat(first.headerValues("x-multi")).containsExactly("a", "b");
        assertThat(first.bodyText()).isEqualTo("{\"n\":1}");
        assertThat(first.arrivedNanos()).isEqualTo(1_000L);
        assertThat(got.get(1).arrivedNanos()).isEqualTo(1_500L);
        // a keep-alive client sends the second request on the same connection
        assertThat(got.get(1).connection()).isEqualTo(first.connection());
        assertThat(receiver.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void answersFromThePlanInArrivalOrderThenTheDefault() throws Exception {
        receiver.plan(Answer.status(503).withHeader("Retry-After", "7"),
                Answer.status(429).withHeader("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT").withBody("slow down"));

        HttpResponse<String> first = send(post("/", "1"));
        assertThat(first.statusCode()).isEqualTo(503);
        assertThat(first.headers().firstValue("retry-after")).hasValue("7");
        HttpResponse<String> second = send(post("/", "2"));
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.body()).isEqualTo("slow down");
        assertThat(receiver.planned()).isZero();
        assertThat(send(post("/", "3")).statusCode()).isEqualTo(200);

        receiver.defaultAnswer(Answer.status(204));
        assertThat(send(post("/", "4")).statusCode()).isEqualTo(204);
        assertThat(receiver.requestCount()).isEqualTo(4);
    }

    @Test
    void aDelayedAnswerStillArrivesWithItsStatus() throws Exception {
        receiver.plan(Answer.status(202).withDelay(Duration.ofMillis(200)).withBody("late"));
        HttpResponse<String> r = send(post("/", "x"));
        assertThat(r.statusCode()).isEqualTo(202);
        assertThat(r.body()).isEqualTo("late");
        assertThat(receiver.inFlight()).isZero();
        assertThat(receiver.maxInFlight()).isEqualTo(1);
    }

    @Test
    void resetClosesTheConnectionWithAnRstNotAFin() throws Exception {
        receiver.plan(Answer.reset());
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), receiver.port())) {
            s.setSoTimeout((int) WAIT.toMillis());
            s.getOutputStream().write(rawPost("/r", "x").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            // an orderly close (FIN) would read -1; an RST makes the read fail
            assertThatThrownBy(in::read).isInstanceOf(SocketException.class);
        }
        receiver.awaitInFlight(0, WAIT);
        assertThat(receiver.received()).hasSize(1);
        // the next request (a new connection) gets the default answer
        assertThat(send(post("/", "after")).statusCode()).isEqualTo(200);
    }

    @Test
    void hangNeverAnswersAndStaysInFlightUntilTheReceiverStops() throws Exception {
        receiver.plan(Answer.hang(), Answer.hang(), Answer.hang());
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(client.sendAsync(post("/", "h" + i), HttpResponse.BodyHandlers.ofString()));
        }
        receiver.awaitInFlight(3, WAIT);
        assertThat(receiver.maxInFlight()).isEqualTo(3);
        assertThat(calls).noneMatch(CompletableFuture::isDone);
        assertThat(receiver.received()).extracting(Received::connection).doesNotHaveDuplicates();

        receiver.stop();
        receiver.awaitInFlight(0, WAIT);
        assertThat(receiver.maxInFlight()).isEqualTo(3);
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            assertThatThrownBy(() -> call.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        }
    }

    @Test
    void stopsAndRestartsOnTheSamePort() throws Exception {
        int port = receiver.port();
        assertThat(send(post("/", "before")).statusCode()).isEqualTo(200);

        receiver.stop();
        assertThat(receiver.isRunning()).isFalse();
        // fresh clients: the first one's pooled connection was closed by stop(), and a POST
        // on it could fail with some other IOException before the client notices
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();
        assertThatThrownBy(() -> send(post("/", "down"))).isInstanceOf(ConnectException.class);

        receiver.plan(Answer.status(201));
        receiver.restart();
        assertThat(receiver.port()).isEqualTo(port);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();
        assertThat(send(post("/", "after")).statusCode()).isEqualTo(201);
        assertThat(receiver.received()).extracting(Received::bodyText).containsExactly("before", "after");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        receiver.plan(Answer.status(201).withDelay(Duration.ofMillis(300)), Answer.status(202));
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), receiver.port())) {
            s.setSoTimeout((int) WAIT.toMillis());
            OutputStream out = s.getOutputStream();
            out.write((rawPost("/1", "a") + rawPost("/2", "b")).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String replies = readUntil(s.getInputStream(), 2);
            assertThat(replies.indexOf("HTTP/1.1 201")).isGreaterThanOrEqualTo(0)
                    .isLessThan(replies.indexOf("HTTP/1.1 202"));
        }
    }

    @Test
    void countsEveryRequestOfAConcurrentCrowdExactly() throws Exception {
        receiver.defaultAnswer(Answer.status(204).withDelay(Duration.ofMillis(20)));
        int threads = 8;
        int each = 10;
        Together.run(threads, t -> {
            HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();
            for (int i = 0; i < each; i++) {
                assertThat(own.send(post("/c", t + ":" + i), HttpResponse.BodyHandlers.discarding()).statusCode())
                        .isEqualTo(204);
            }
        });
        assertThat(receiver.requestCount()).isEqualTo(threads * each);
        assertThat(receiver.received()).extracting(Received::bodyText).doesNotHaveDuplicates();
        assertThat(receiver.inFlight()).isZero();
        assertThat(receiver.maxInFlight()).isBetween(1, threads);
    }

    @Test
    void awaitRequestsFailsNamingWhatArrived() {
        assertThatThrownBy(() -> receiver.awaitRequests(1, Duration.ofMillis(50)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("expected 1 requests").hasMessageContaining("got 0");
    }

    @Test
    void anAnswerThatSendsNothingTakesNoHeaders() {
        assertThatThrownBy(() -> Answer.hang().withHeader("a", "b")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Answer.status(42)).isInstanceOf(IllegalArgumentException.class);
    }

    private static String rawPost(String path, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    /** Reads until {@code responses} status lines with their (empty) bodies have arrived. */
    private static String readUntil(InputStream in, int responses) throws IOException {
        StringBuilder s = new StringBuilder();
        byte[] buf = new byte[4096];
        while (count(s.toString(), "\r\n\r\n") < responses) {
            int n = in.read(buf);
            if (n < 0) {
                break;
            }
            s.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
        }
        return s.toString();
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
