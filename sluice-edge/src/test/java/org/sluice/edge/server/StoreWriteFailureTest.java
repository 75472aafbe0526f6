package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.ChildJvm;

/**
 * A store whose writes really fail. The server ({@code sluice serve}) runs in a child JVM,
 * and the test lowers that process's soft file-size limit (RLIMIT_FSIZE) to 0 with
 * {@code prlimit}: every file write then fails with EFBIG ("File too large"), so the next
 * commit's write-ahead-log append is a real I/O error that RocksDB latches as a background
 * error, as it would a full disk (the JVM ignores SIGXFSZ, so the process lives on). While
 * the limit holds no reopen can succeed either (opening writes a new log and manifest).
 * Raising the limit again lets the server's resume task bring the store back. No mount and
 * no permission trick, so it works as root.
 */
class StoreWriteFailureTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void readyzIs503StoreFailingWhileCommitsFailAndTheStoreResumesWhenTheDiskWritesAgain() throws Exception {
        assumeTrue(prlimitWorks(), "needs the prlimit tool (util-linux)");
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                node: {id: disk, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  s: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """.formatted(dir.resolve("data")));
        Map<String, String> acked = new LinkedHashMap<>(); // dedupe key -> id of its 202
        try (ChildJvm server = CrashSafetyTest.startServer(config)) {
            String line = server.awaitLine(l -> l.startsWith("sluice: serving on"), Duration.ofSeconds(60));
            InetSocketAddress ingest = CrashSafetyTest.addressOf(server);
            InetSocketAddress admin = adminAddress(line);
            for (int i = 0; i < 5; i++) {
                acked.put("k" + i, accepted(post(ingest, "k" + i)));
            }
            assertThat(Http.get(ingest, "/readyz").status()).isEqualTo(200);
            assertThat(healthyGauge(admin)).isEqualTo("1.0");

            prlimit(server.pid(), "0:"); // soft limit 0: no file of the server's can grow
            for (int i = 0; i < 3; i++) {
                Http.Response failed = post(ingest, "lost" + i);
                assertThat(failed.status()).as(failed.body()).isEqualTo(503);
                assertThat(failed.body()).isEqualTo("{\"error\":\"store_unavailable\"}");
            }
            Http.Response ready = Http.get(ingest, "/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("{\"status\":\"unavailable\",\"reason\":\"store_failing\"}");
            assertThat(ready.header("Retry-After")).isEqualTo("1");
            assertThat(healthyGauge(admin)).isEqualTo("0.0");
            assertThat(Http.get(ingest, "/healthz").status()).as("the process still serves").isEqualTo(200);

            prlimit(server.pid(), "unlimited:");
            TestEdge.await(() -> Http.get(ingest, "/readyz").status() == 200);
            assertThat(healthyGauge(admin)).isEqualTo("1.0");
            acked.put("lost0", accepted(post(ingest, "lost0"))); // its sender's retry is taken now
            Http.Response again = post(ingest, "k0");
            assertThat(again.status()).as("the dedupe index survived the reopen").isEqualTo(200);
            assertThat(JSON.readTree(again.body()).get("id").asText()).isEqualTo(acked.get("k0"));

            server.terminate();
            assertThat(server.waitFor(Duration.ofSeconds(60))).isIn(0, 143);
        }
        try (HookStore store = RocksHookStore.open(dir.resolve("data").resolve("store"))) {
            Map<String, String> idByKey = new LinkedHashMap<>();
            for (StoredHook hook : StoredHooks.all(store)) {
                assertThat(idByKey.put(hook.dedupeKey(), hook.id())).as("key %s stored twice", hook.dedupeKey()).isNull();
            }
            acked.forEach((key, id) -> assertThat(idByKey.get(key)).as("acknowledged key %s", key).isEqualTo(id));
        }
    }

    private static Http.Response post(InetSocketAddress ingest, String key) {
        return Http.post(ingest, "/hooks/s", Map.of("X-Event-Id", key),
                ("{\"key\":\"" + key + "\",\"pad\":\"" + "x".repeat(512) + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    private static String accepted(Http.Response r) throws IOException {
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body()).get("id").asText();
    }

    /** The value of {@code sluice_store_healthy} in the admin listener's {@code /metrics}. */
    private static String healthyGauge(InetSocketAddress admin) {
        Http.Response metrics = Http.get(admin, "/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        for (String l : metrics.body().split("\n")) {
            if (l.startsWith("sluice_store_healthy ")) {
                return l.substring("sluice_store_healthy ".length()).trim();
            }
        }
        throw new AssertionError("no sluice_store_healthy in /metrics");
    }

    /** "sluice: serving on /127.0.0.1:P (admin /127.0.0.1:Q)" -> the admin address. */
    private static InetSocketAddress adminAddress(String servingLine) {
        String admin = servingLine.substring(servingLine.indexOf("(admin ") + "(admin ".length(), servingLine.lastIndexOf(')'));
        return new InetSocketAddress("127.0.0.1", Integer.parseInt(admin.substring(admin.lastIndexOf(':') + 1)));
    }

    /** Sets the soft (and, if given, hard) file-size limit of {@code pid}: "soft:" or "soft:hard". */
    private static void prlimit(long pid, String limits) throws Exception {
        Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--fsize=" + limits)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("prlimit: " + out).isZero();
    }

    private static boolean prlimitWorks() {
        try {
            Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(ProcessHandle.current().pid()), "--fsize")
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
