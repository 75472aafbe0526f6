package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import org.sluice.testkit.ChildJvm;
import org.sluice.testkit.Eventually;

/**
 * The load half of the crash tests: the real server ({@code sluice serve}) starts in a child
 * JVM on a config of the test, {@link #SENDERS} senders post hooks to {@code /hooks/s} (every
 * fifth repeating an earlier dedupe key) until a condition of the test holds, and then the
 * server is stopped, by {@code kill -9} unless the test says otherwise. The senders end when
 * their connection breaks; what comes back is every hook that got a {@code 202}.
 */
final class HookStorm {

    static final int SENDERS = 8;

    private static final Duration EXIT_BOUND = Duration.ofSeconds(60);

    private HookStorm() {
    }

    /** What a storm left: the {@code 202}s (dedupe key to hook id) and how the server ended. */
    record Outcome(Map<String, String> acked, int exit, List<String> stdout, List<String> stderr) {
    }

    /**
     * Sends until {@code ready} holds for the number of {@code 202}s so far (waiting up to
     * {@code bound}, {@code what} naming the wait), then SIGKILLs the server.
     *
     * @return dedupe key to the id of its {@code 202}
     */
    static Map<String, String> sendUntilKilled(Path config, String what, Duration bound, IntPredicate ready)
            throws InterruptedException {
        return sendUntilStopped(config, what, bound, ready, ChildJvm::kill).acked();
    }

    /** As {@link #sendUntilKilled}, with {@code stop} sending the signal instead. */
    static Outcome sendUntilStopped(Path config, String what, Duration bound, IntPredicate ready, Consumer<ChildJvm> stop)
            throws InterruptedException {
        Map<String, String> acked = new ConcurrentHashMap<>();
        AtomicInteger acks = new AtomicInteger();
        ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
        Outcome outcome;
        try (ChildJvm server = CrashSafetyTest.startServer(config)) {
            InetSocketAddress address = CrashSafetyTest.addressOf(server);
            for (int s = 0; s < SENDERS; s++) {
                int sender = s;
                senders.execute(() -> send(address, sender, acked, acks));
            }
            try {
                Eventually.until(what, bound, () -> ready.test(acks.get()));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + " (" + acks.get() + " acks); the server said "
                        + tail(server.stdoutLines()) + tail(server.stderrLines()), e);
            }
            stop.accept(server);
            int exit = server.waitFor(EXIT_BOUND);
            outcome = new Outcome(acked, exit, server.stdoutLines(), server.stderrLines());
        }
        senders.shutdown();
        assertThat(senders.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        return outcome;
    }

    /** Posts until the connection breaks; records each 202 (every fifth hook repeats an earlier key). */
    private static void send(InetSocketAddress address, int sender, Map<String, String> acked, AtomicInteger acks) {
        try (Http http = Http.connect(address)) {
            for (int i = 0; ; i++) {
                String key = i % 5 == 4 ? "k-" + sender + "-" + (i - 3) : "k-" + sender + "-" + i;
                Http.Response r = http.request("POST", "/hooks/s", Map.of("X-Event-Id", key),
                        ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                if (r.status() == 202) {
                    String id = CrashSafetyTest.JSON.readTree(r.body()).get("id").asText();
                    assertThat(acked.put(key, id)).as("a second 202 for key " + key).isNull();
                    acks.incrementAndGet();
                } else if (r.status() != 200) {
                    return; // 503 while stopping
                }
                if ("close".equals(r.header("connection"))) {
                    return;
                }
            }
        } catch (UncheckedIOException | com.fasterxml.jackson.core.JsonProcessingException e) {
            // the server went away mid-request: that hook was not acknowledged
        }
    }

    private static List<String> tail(List<String> lines) {
        return lines.subList(Math.max(0, lines.size() - 15), lines.size());
    }
}
