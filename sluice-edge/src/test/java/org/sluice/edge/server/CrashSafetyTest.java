package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.cli.Main;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.ChildJvm;
import org.sluice.testkit.Eventually;

/**
 * Crash safety as separate processes: the real CLI ({@code sluice serve}) runs in a child
 * JVM; eight senders post hooks concurrently (every fifth one repeating an earlier key);
 * the server is stopped mid-load, by SIGKILL or by SIGTERM, and restarted on the same
 * data dir. Every hook that got a 202 must be in the store under the id it was given, and
 * no dedupe key may be stored twice.
 */
class CrashSafetyTest {

    static final ObjectMapper JSON = new ObjectMapper();
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
        HookStorm.Outcome storm = HookStorm.sendUntilStopped(config, ACKS_BEFORE_STOP + " hooks acknowledged",
                Eventually.DEFAULT_BOUND, acks -> acks >= ACKS_BEFORE_STOP, kill ? ChildJvm::kill : ChildJvm::terminate);
        if (!kill) {
            assertThat(storm.exit()).as("a clean stop on SIGTERM").isIn(0, 143);
            assertThat(storm.stdout()).as("exit " + storm.exit() + "\n" + String.join("\n", storm.stderr())).contains("sluice: stopped");
        }
        Map<String, String> acked = storm.acked(); // dedupe key -> id of its 202
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

        try (HookStore store = RocksHookStore.open(dir.resolve("data").resolve("store"))) {
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
}
