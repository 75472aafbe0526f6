package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.cli.Main;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;
import org.sluice.testkit.ChildJvm;

/**
 * Crash safety as separate processes: the real CLI ({@code sluice serve}) runs in a child
 * JVM; eight senders post hooks concurrently (every fifth one repeating an earlier key);
 * the server is stopped mid-load, by SIGKILL or by SIGTERM, and restarted on the same
 * data dir. Every hook that got a 202 must be in the store under the id it was given, and
 * no dedupe key may be stored twice.
 */
class CrashSafetyTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final int SENDERS = 8;
    static final int ACKS_BEFORE_STOP = 300;

    @TempDir
    Path dir;

    @Test
    void killNineMidLoadLosesNoAcknowledgedHook() throws Exception {
        run(true);
    }

    @Test
    void sigtermMidLoadStopsCleanlyAndLosesNoAcknowledgedHook() throws Exception {
        run(false);
    }

    private void run(boolean kill) throws Exception {
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                node: {id: crash, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  s: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """.formatted(dir.resolve("data")));
        Map<String, String> acked = new ConcurrentHashMap<>(); // dedupe key -> id of its 202
        AtomicInteger acks = new AtomicInteger();
        ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
        try (ChildJvm server = startServer(config)) {
            InetSocketAddress address = addressOf(server);
            for (int s = 0; s < SENDERS; s++) {
                int sender = s;
                senders.execute(() -> send(address, sender, acked, acks));
            }
            TestEdge.await(() -> acks.get() >= ACKS_BEFORE_STOP);
            if (kill) {
                server.kill();
            } else {
                // SIGTERM through the process handle: Process.destroy() would also close our end of
                // the child's stdout, and we want to read its last line
                ProcessHandle.of(server.pid()).orElseThrow().destroy();
            }
            int exit = server.waitFor(Duration.ofSeconds(60));
            if (!kill) {
                assertThat(exit).as("a clean stop on SIGTERM").isIn(0, 143);
                assertThat(server.stdoutLines()).as("exit " + exit + "\n" + String.join("\n", server.stderrLines())).contains("sluice: stopped");
            }
        }
        senders.shutdown();
        assertThat(senders.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        assertThat(acked).hasSizeGreaterThanOrEqualTo(ACKS_BEFORE_STOP / 2);

        // restart on the same data dir: the dedupe index survived, an acknowledged key is a duplicate
        String someKey = acked.keySet().iterator().next();
        try (ChildJvm again = startServer(config)) {
            InetSocketAddress address = addressOf(again);
            Http.Response r = Http.post(address, "/hooks/s", Map.of("X-Event-Id", someKey), "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(r.status()).isEqualTo(200);
            assertThat(JSON.readTree(r.body()).get("id").asText()).isEqualTo(acked.get(someKey));
            again.terminate();
            again.waitFor(Duration.ofSeconds(60));
        }

        try (HookStore store = HookStore.open(dir.resolve("data").resolve("store"))) {
            List<StoredHook> all = StoredHooks.all(store);
            Map<String, String> idByKey = new HashMap<>();
            for (StoredHook hook : all) {
                assertThat(idByKey.put(hook.dedupeKey(), hook.id())).as("key %s stored twice", hook.dedupeKey()).isNull();
            }
            acked.forEach((key, id) -> assertThat(idByKey.get(key)).as("acknowledged key %s", key).isEqualTo(id));
        }
    }

    static ChildJvm startServer(Path config) {
        return ChildJvm.builder(Main.class).args("serve", "--config", config.toString()).start();
    }

    static InetSocketAddress addressOf(ChildJvm server) {
        String line = server.awaitLine(l -> l.startsWith("sluice: serving on"), Duration.ofSeconds(60));
        // "sluice: serving on /127.0.0.1:PORT (admin /127.0.0.1:PORT)"
        String ingest = line.substring("sluice: serving on ".length()).split(" ")[0];
        return new InetSocketAddress("127.0.0.1", Integer.parseInt(ingest.substring(ingest.lastIndexOf(':') + 1)));
    }

    /** Posts until the connection breaks; records each 202 (every fifth hook repeats an earlier key). */
    static void send(InetSocketAddress address, int sender, Map<String, String> acked, AtomicInteger acks) {
        try (Http http = Http.connect(address)) {
            for (int i = 0; ; i++) {
                String key = i % 5 == 4 ? "k-" + sender + "-" + (i - 3) : "k-" + sender + "-" + i;
                Http.Response r = http.request("POST", "/hooks/s", Map.of("X-Event-Id", key),
                        ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                if (r.status() == 202) {
                    String id = JSON.readTree(r.body()).get("id").asText();
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
}
