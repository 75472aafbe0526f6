package org.sluice.edge.delivery.http;

import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.targets.HttpTarget;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.BreakerSettings;
import org.sluice.edge.delivery.http.ClientLoops;
import org.sluice.edge.netio.TestTransport;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.testkit.HookReceiver.Answer;
import org.sluice.testkit.HookReceiver.Received;
import org.sluice.testkit.HookReceiver;

/** The outbound client against real sockets: what it sends, how it reads hostile or odd answers, TLS. */
class HttpDeliveryClientTest {

    private static final byte[] BODY = "{\"a\":\"\u00e9\"}\n".getBytes(StandardCharsets.UTF_8);
    private static final List<Map.Entry<String, String>> HEADERS = List.of(Map.entry("webhook-id", "id-1"),
            Map.entry("sluice-attempt", "1"), Map.entry("x-custom", "v"));

    @TempDir
    Path dir;
    private final HttpDeliveryClient client = new HttpDeliveryClient(1, TestTransport.io(), Clock.systemUTC());
    private HookReceiver receiver;

    @AfterEach
    void close() {
        client.close();
        if (receiver != null) {
            receiver.close();
        }
    }

    private static Destination destination(String name, URI url, long timeoutMs, Path caFile) {
        return new Destination(name, new HttpTarget(url, Optional.ofNullable(caFile)), timeoutMs, 4,
                Optional.empty(), OutboundHeaders.of("destinations." + name, List.of(), Map.of(), null, "t"), Ordering.NONE,
                RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    private AttemptOutcome send(String name) throws Exception {
        return client.send(name, HEADERS, BODY).get(60, TimeUnit.SECONDS);
    }

    private void plainReceiver(long timeoutMs) {
        receiver = HookReceiver.start();
        client.register(destination("d", receiver.uri("/p/q?x=1"), timeoutMs, null));
    }

    @Test
    void postsTheBodyByteForByteWithExactlyHostLengthAndTheGivenHeaders() throws Exception {
        plainReceiver(30_000);
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(200));
        Received got = receiver.received().get(0);
        assertThat(got.method()).isEqualTo("POST");
        assertThat(got.path()).isEqualTo("/p/q?x=1");
        assertThat(got.body()).isEqualTo(BODY);
        assertThat(got.headers().keySet()).containsExactlyInAnyOrder("host", "webhook-id", "sluice-attempt", "x-custom",
                "content-length");
        assertThat(got.header("host")).isEqualTo("127.0.0.1:" + receiver.port());
        assertThat(got.header("content-length")).isEqualTo(Integer.toString(BODY.length));
    }

    @Test
    void sendsFromManyThreadsAtOnceAreEachStartedAndAnsweredOnce() throws Exception {
        // sends queue for the destination's loop, which starts everything queued in one task:
        // an attempt queued while a run is being scheduled or is draining must not be left behind
        receiver = HookReceiver.start();
        client.register(new Destination("d", new HttpTarget(receiver.uri("/")), 30_000, 64, Optional.empty(),
                OutboundHeaders.of("destinations.d", List.of(), Map.of(), null, "t"), Ordering.NONE,
                RetryPolicy.defaults(), BreakerSettings.defaults()));
        int threads = 4;
        int perThread = 250;
        List<java.util.concurrent.CompletableFuture<AttemptOutcome>> futures =
                java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        List<Thread> senders = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int from = t * perThread;
            senders.add(new Thread(() -> {
                for (int i = from; i < from + perThread; i++) {
                    futures.add(client.send("d", List.of(Map.entry("webhook-id", "id-" + i)), BODY));
                }
            }));
        }
        senders.forEach(Thread::start);
        for (Thread t : senders) {
            t.join();
        }
        for (var f : futures) {
            assertThat(f.get(60, TimeUnit.SECONDS).result()).isEqualTo(AttemptResult.answered(200));
        }
        assertThat(receiver.received()).extracting(r -> r.header("webhook-id")).hasSize(threads * perThread)
                .doesNotHaveDuplicates();
    }

    @Test
    void attemptsHandedOverByTheDispatcherStartAtTheFlushAndNotBefore() throws Exception {
        // the dispatcher's sends only queue, so that a pass wakes the loop once; the flush at its end starts them
        receiver = HookReceiver.start();
        Destination d = destination("d", receiver.uri("/"), 30_000, null);
        client.register(d);
        org.sluice.edge.store.StoredHook hook = new org.sluice.edge.store.StoredHook(
                "0190f6c2-7a40-7000-8000-000000000001", "t", "s", null, 1_700_000_000_000L, Map.of(), BODY);
        List<java.util.concurrent.CompletableFuture<AttemptOutcome>> futures = new java.util.ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            futures.add(client.send(d, hook, i, 1_700_000_000_000L));
        }
        assertThat(client.queued("d")).isEqualTo(3);
        client.flush();
        for (var f : futures) {
            assertThat(f.get(60, TimeUnit.SECONDS).result()).isEqualTo(AttemptResult.answered(200));
        }
        assertThat(client.queued("d")).isZero();
        assertThat(receiver.received()).extracting(r -> r.header("sluice-attempt")).containsExactlyInAnyOrder("1", "2", "3");
    }

    @Test
    void closingFailsAttemptsQueuedAndNeverFlushed() throws Exception {
        plainReceiver(30_000);
        Destination d = destination("d", receiver.uri("/"), 30_000, null);
        org.sluice.edge.store.StoredHook hook = new org.sluice.edge.store.StoredHook(
                "0190f6c2-7a40-7000-8000-000000000002", "t", "s", null, 1_700_000_000_000L, Map.of(), BODY);
        var f = client.send(d, hook, 1, 1_700_000_000_000L);
        client.close();
        assertThat(f.get(30, TimeUnit.SECONDS).error()).isEqualTo("client closed");
        assertThat(receiver.received()).isEmpty();
    }

    @Test
    void closingCompletesEveryAttemptStillOut() throws Exception {
        plainReceiver(60_000);
        receiver.plan(Answer.hang(), Answer.hang(), Answer.hang()); // three never answered: the close must end them
        List<java.util.concurrent.CompletableFuture<AttemptOutcome>> futures = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            futures.add(client.send("d", HEADERS, BODY));
        }
        client.close();
        for (var f : futures) { // none is left hanging: answered, or failed by the close
            assertThat(f.get(30, TimeUnit.SECONDS)).isNotNull();
        }
        assertThat(client.send("d", HEADERS, BODY).get(5, TimeUnit.SECONDS).error()).isEqualTo("client closed");
    }

    @Test
    void onBorrowedLoopsItDeliversAndItsCloseEndsItsAttemptsButLeavesTheLoopsRunning() throws Exception {
        io.netty.channel.EventLoopGroup lent = TestTransport.io().group(2, "lent");
        try {
            HttpDeliveryClient borrowed = new HttpDeliveryClient(new ClientLoops(lent, TestTransport.io()), Clock.systemUTC());
            receiver = HookReceiver.start();
            borrowed.register(destination("d", receiver.uri("/p"), 60_000, null));
            for (int i = 0; i < 3; i++) {
                assertThat(borrowed.send("d", HEADERS, BODY).get(60, TimeUnit.SECONDS).result())
                        .isEqualTo(AttemptResult.answered(200));
            }
            assertThat(receiver.connectionsAccepted()).isEqualTo(1); // kept alive on the lent loop
            receiver.plan(Answer.hang(), Answer.hang()); // never answered: the close must end them
            var first = borrowed.send("d", HEADERS, BODY);
            var second = borrowed.send("d", HEADERS, BODY);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (receiver.received().size() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(5); // until both are out (the receiver holds them)
            }
            assertThat(receiver.received()).hasSize(5);
            borrowed.close();
            assertThat(first.get(30, TimeUnit.SECONDS).error()).isEqualTo("client closed");
            assertThat(second.get(30, TimeUnit.SECONDS).error()).isEqualTo("client closed");
            assertThat(borrowed.send("d", HEADERS, BODY).get(5, TimeUnit.SECONDS).error()).isEqualTo("client closed");
            assertThat(lent.isShuttingDown()).isFalse(); // the owner's loops still run tasks
            assertThat(lent.submit(() -> 42).get(5, TimeUnit.SECONDS)).isEqualTo(42);
        } finally {
            lent.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aBusyDestinationsAttemptsAreSpreadOverEveryLoopWhileOneAtATimeStayOnOneConnection() throws Exception {
        HttpDeliveryClient twoLoops = new HttpDeliveryClient(2, TestTransport.io(), Clock.systemUTC());
        try {
            receiver = HookReceiver.start();
            twoLoops.register(destination("first", receiver.uri("/p"), 60_000, null));
            for (int i = 0; i < 4; i++) { // one at a time: always the home pool, one kept-alive connection
                assertThat(twoLoops.send("first", HEADERS, BODY).get(60, TimeUnit.SECONDS).result())
                        .isEqualTo(AttemptResult.answered(200));
            }
            assertThat(receiver.connectionsAccepted()).isEqualTo(1);
            assertThat(twoLoops.outstanding("first")).containsExactly(0, 0);

            receiver.plan(Answer.hang(), Answer.hang(), Answer.hang(), Answer.hang(), Answer.hang());
            List<CompletableFuture<AttemptOutcome>> out = new ArrayList<>();
            for (int i = 0; i < 5; i++) { // all out at once: dealt to the least busy pool, home first on a tie
                out.add(twoLoops.send("first", HEADERS, BODY));
            }
            assertThat(twoLoops.outstanding("first")).containsExactly(3, 2);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (receiver.received().size() < 9 && System.nanoTime() < deadline) {
                Thread.sleep(5); // until the receiver holds all five
            }
            assertThat(receiver.received()).hasSize(9);
            // the home pool reused its connection for one of its three; every other attempt needed a new one
            assertThat(receiver.connectionsAccepted()).isEqualTo(5);
            twoLoops.close();
            for (var f : out) { // its own loops stop first: an attempt may see its connection go before the close ends it
                assertThat(f.get(30, TimeUnit.SECONDS).error()).isIn("client closed", "connection closed before a full answer");
            }
            assertThat(twoLoops.outstanding("first")).containsExactly(0, 0);
        } finally {
            twoLoops.close();
        }
    }

    @Test
    void keepAliveConnectionIsReused() throws Exception {
        plainReceiver(30_000);
        for (int i = 0; i < 5; i++) {
            assertThat(send("d").result()).isEqualTo(AttemptResult.answered(200));
        }
        assertThat(receiver.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void answerBodyBeyond64KiBIsNotReadAndItsConnectionIsClosed() throws Exception {
        plainReceiver(30_000);
        receiver.plan(Answer.status(200).withBody(new byte[8 * 1024 * 1024]));
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(200));
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(200));
        assertThat(receiver.connectionsAccepted()).as("the first connection was dropped, not drained").isEqualTo(2);
    }

    @Test
    void redirectIsAnAnswerAndNotFollowed() throws Exception {
        plainReceiver(30_000);
        receiver.plan(Answer.status(302).withHeader("Location", "/elsewhere"));
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(302));
        assertThat(receiver.requestCount()).isEqualTo(1);
    }

    @Test
    void retryAfterIsRead() throws Exception {
        plainReceiver(30_000);
        receiver.plan(Answer.status(503).withHeader("Retry-After", "120"));
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(503, 120_000));
    }

    @Test
    void hangIsATimeoutNamedWithItsLength() throws Exception {
        plainReceiver(300);
        receiver.plan(Answer.hang());
        AttemptOutcome o = send("d");
        assertThat(o.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.TIMEOUT));
        assertThat(o.error()).isEqualTo("timeout after 300 ms");
        assertThat(send("d").result()).as("a fresh connection after the timeout").isEqualTo(AttemptResult.answered(200));
    }

    @Test
    void resetIsAFailure() throws Exception {
        plainReceiver(30_000);
        receiver.plan(Answer.reset());
        AttemptOutcome o = send("d");
        assertThat(o.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.RESET));
        assertThat(o.error()).isIn("connection reset", "connection closed before a full answer");
    }

    @Test
    void aPooledConnectionClosedBeforeAnyAnswerIsSentAgainOnceOnAFreshConnection() throws Exception {
        plainReceiver(30_000);
        receiver.plan(Answer.status(200), Answer.reset());
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(200));
        assertThat(send("d").result()).as("the stale pooled connection does not spend the attempt")
                .isEqualTo(AttemptResult.answered(200));
        assertThat(receiver.connectionsAccepted()).isEqualTo(2);
        assertThat(receiver.requestCount()).isEqualTo(3);
    }

    @Test
    void aFreshConnectionClosedBeforeAnyAnswerIsNotSentAgain() throws Exception {
        plainReceiver(30_000);
        receiver.plan(Answer.status(200), Answer.reset(), Answer.reset());
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(200));
        assertThat(send("d").result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.RESET));
        assertThat(receiver.requestCount()).as("once on the pooled connection, once on a fresh one").isEqualTo(3);
        assertThat(send("d").result()).isEqualTo(AttemptResult.answered(200));
    }

    @Test
    void oversizedAnswerHeadersAreUnreadableNotBuffered() throws Exception {
        plainReceiver(30_000);
        receiver.plan(Answer.status(200).withHeader("X-Big", "v".repeat(64 * 1024)));
        AttemptOutcome o = send("d");
        assertThat(o.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.PROTOCOL));
        assertThat(o.error()).isEqualTo("unreadable answer");
    }

    @Test
    void refusedConnectIsAConnectFailure() throws Exception {
        // a port held bound but not listening: refused, and no other process can take it meanwhile
        try (java.net.Socket held = new java.net.Socket()) {
            held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.register(destination("d", URI.create("http://127.0.0.1:" + held.getLocalPort() + "/"), 30_000, null));
            AttemptOutcome o = send("d");
            assertThat(o.result()).as(o.error()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.CONNECT));
            assertThat(o.error()).isEqualTo("connect refused");
        }
    }

    // ---------------------------------------------------------------- TLS

    @Test
    void httpsTrustsTheCaFileAndVerifiesTheHostName() throws Exception {
        Path good = keyPair("good", "SAN=ip:127.0.0.1");
        Path wrongName = keyPair("wrong", "SAN=dns:other.test");
        HttpsServer server = https(good, "good");
        HttpsServer other = https(wrongName, "wrong");
        try {
            client.register(destination("tls", url(server), 30_000, pem(good, "good")));
            client.register(destination("jdk", url(server), 30_000, null));
            client.register(destination("name", url(other), 30_000, pem(wrongName, "wrong")));

            assertThat(send("tls").result()).isEqualTo(AttemptResult.answered(204));
            AttemptOutcome untrusted = send("jdk");
            assertThat(untrusted.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.CONNECT));
            assertThat(untrusted.error()).startsWith("tls handshake failed");
            AttemptOutcome misnamed = send("name");
            assertThat(misnamed.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.CONNECT));
            assertThat(misnamed.error()).startsWith("tls handshake failed");
        } finally {
            server.stop(0);
            other.stop(0);
        }
    }

    private static URI url(HttpsServer s) {
        return URI.create("https://127.0.0.1:" + s.getAddress().getPort() + "/in");
    }

    /** A PKCS12 keystore holding a self-signed key pair made by the JDK's keytool. */
    private Path keyPair(String alias, String san) throws Exception {
        Path ks = dir.resolve(alias + ".p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", alias, "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=" + alias,
                "-ext", san, "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        keytool.getInputStream().readAllBytes();
        assertThat(keytool.waitFor()).isZero();
        return ks;
    }

    private Path pem(Path keystore, String alias) throws Exception {
        KeyStore ks = load(keystore);
        String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(ks.getCertificate(alias).getEncoded());
        return Files.writeString(dir.resolve(alias + ".pem"), "-----BEGIN CERTIFICATE-----\n" + b64 + "\n-----END CERTIFICATE-----\n");
    }

    private static KeyStore load(Path keystore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        return ks;
    }

    private static HttpsServer https(Path keystore, String alias) throws Exception {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(load(keystore), "changeit".toCharArray());
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
        HttpsServer s = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.setHttpsConfigurator(new HttpsConfigurator(ssl));
        s.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        s.start();
        return s;
    }

    @Test
    void unusableCaFileFailsWhenTheDestinationIsRegistered() throws Exception {
        Path notPem = Files.writeString(dir.resolve("bad.pem"), "not a certificate");
        assertThatThrownBy(() -> client.register(destination("bad", URI.create("https://127.0.0.1:1/"), 1000, notPem)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("destinations.bad.ca_file: cannot build a TLS context from ");
    }
}
