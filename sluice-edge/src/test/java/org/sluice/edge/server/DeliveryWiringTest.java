package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.PendingHook;
import org.sluice.testkit.HookReceiver;

/** The server starts a dispatcher when destinations are configured, and it delivers what the store schedules. */
class DeliveryWiringTest {

    @TempDir
    Path dir;

    private static java.util.Set<Thread> ownDeliveryLoops() {
        java.util.Set<Thread> loops = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("sluice-delivery-io")) {
                loops.add(t);
            }
        }
        return loops;
    }

    @Test
    void configuredDestinationsGetADispatcherThatDeliversScheduledHooksOnTheIngestLoops() throws Exception {
        java.util.Set<Thread> before = ownDeliveryLoops();
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.start(dir, """
                     http: {listen: "127.0.0.1:0"}
                     destinations:
                       app: {url: "%s"}
                     sources:
                       a: {verify: {scheme: none}, deliver_to: [app]}
                     """.formatted(receiver.uri("/in")))) {
            var dispatcher = edge.backends().dispatcher();
            assertThat(dispatcher).isNotNull();
            assertThat(dispatcher.activity().of("app")).isPresent();
            assertThat(dispatcher.activity().of("nope")).isEmpty();

            // scheduled as the intake will schedule it once it passes deliver_to on
            CommitResult c = edge.backends().store().commit(List.of(new PendingHook("t", "a", null,
                    System.currentTimeMillis(), Map.of("Content-Type", "application/json"),
                    "{\"x\":1}".getBytes(StandardCharsets.UTF_8), List.of("app")))).get(0);
            dispatcher.wake();

            HookReceiver.Received got = receiver.awaitRequests(1, Duration.ofSeconds(30)).get(0);
            assertThat(got.header("webhook-id")).isEqualTo(c.id());
            assertThat(got.bodyText()).isEqualTo("{\"x\":1}");
            TestEdge.await(() -> edge.backends().store().deliveries().deliveries(c.id()).stream()
                    .map(DeliveryRow::state).allMatch(s -> s == DeliveryState.DELIVERED));
            // the HTTP client borrowed the server's ingest loops: no event loop of its own was started
            java.util.Set<Thread> started = ownDeliveryLoops();
            started.removeAll(before);
            assertThat(started).isEmpty();
        }
    }

    @Test
    void withAnHttpsDestinationTheClientKeepsLoopsOfItsOwnSoNoHandshakeHoldsAnIngestLoop() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort(); // nothing listens there once closed: the attempt fails to connect
        }
        java.util.Set<Thread> before = ownDeliveryLoops();
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                destinations:
                  app: {url: "https://127.0.0.1:%d/in"}
                sources:
                  a: {verify: {scheme: none}, deliver_to: [app]}
                """.formatted(closedPort))) {
            CommitResult c = edge.backends().store().commit(List.of(new PendingHook("t", "a", null,
                    System.currentTimeMillis(), Map.of(), "{}".getBytes(StandardCharsets.UTF_8), List.of("app")))).get(0);
            edge.backends().dispatcher().wake();
            TestEdge.await(() -> edge.backends().store().deliveries().deliveries(c.id()).stream()
                    .allMatch(r -> r.attempts() >= 1 && r.lastError() != null));
            java.util.Set<Thread> started = ownDeliveryLoops();
            started.removeAll(before);
            assertThat(started).isNotEmpty(); // the attempt ran on the client's own loop
        }
    }

    @Test
    void noDestinationsNoDispatcher() {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            assertThat(edge.backends().dispatcher()).isNull();
        }
    }
}
