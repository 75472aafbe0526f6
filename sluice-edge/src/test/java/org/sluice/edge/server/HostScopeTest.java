package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.cli.Main;
import org.sluice.shm.SharedArena;
import org.sluice.testkit.ChildJvm;

/**
 * {@code rate_limits.scope: host}: two server processes (separate JVMs, separate data
 * dirs) listening on ONE port with SO_REUSEPORT and sharing one arena admit one tenant
 * limit between them: at most {@code burst + rate x elapsed} hooks, where two node-scoped
 * processes could admit twice that. Bounds only; nothing here asserts a duration.
 */
class HostScopeTest {

    private static final int BURST = 30;
    private static final double RATE = 5;
    private static final Pattern SERVING = Pattern.compile("sluice: serving on .*:(\\d+) \\(admin .*:(\\d+)\\)");

    @TempDir
    Path dir;
    private Path arena;
    private int port;
    private final List<ChildJvm> children = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        arena = SharedArena.defaultFile("sluice-hosttest-" + UUID.randomUUID());
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // chosen by the OS; both servers then bind it with SO_REUSEPORT
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        for (ChildJvm child : children) {
            child.close();
        }
        Files.deleteIfExists(arena);
    }

    private Path config(String name) throws Exception {
        Path data = dir.resolve(name);
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, """
                node: {id: hosttest, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0", token: "host-test-token-0123"}
                http: {listen: "127.0.0.1:%d", reuse_port: true}
                rate_limits:
                  scope: host
                  host_arena: "%s"
                  tenants: {acme: {rate: %s, burst: %d}}
                sources:
                  open: {tenant: acme, verify: {scheme: none}}
                """.formatted(data, port, arena, RATE, BURST));
        return file;
    }

    /** Starts a server process and returns its admin port. */
    private int start(Path config) {
        ChildJvm child = ChildJvm.builder(Main.class).jvmArgs("-Xmx128m").args("serve", "--config", config.toString()).start();
        children.add(child);
        String line = child.awaitLine(l -> SERVING.matcher(l).find(), Duration.ofSeconds(90));
        Matcher m = SERVING.matcher(line);
        assertThat(m.find()).isTrue();
        assertThat(Integer.parseInt(m.group(1))).isEqualTo(port);
        return Integer.parseInt(m.group(2));
    }

    private static long ingestRequests(int adminPort) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        long total = 0;
        for (String line : r.body().split("\n")) {
            if (line.startsWith("sluice_ingest_requests_total{")) {
                total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    /** Result of a hammer run: accepted hooks and the seconds from the first send to the last answer. */
    private record Run(long accepted, long refused, double elapsedSeconds) {
        long bound() {
            return BURST + (long) Math.ceil(RATE * elapsedSeconds) + 1; // +1: a charge on the boundary
        }
    }

    private Run hammer(int threads, long requestsPerThread, Runnable midway) throws Exception {
        InetSocketAddress target = new InetSocketAddress("127.0.0.1", port);
        AtomicLong accepted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        AtomicBoolean midwayDone = new AtomicBoolean(midway == null);
        AtomicBoolean restarting = new AtomicBoolean();
        AtomicLong unavailable = new AtomicLong();
        long total = threads * requestsPerThread;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                for (int i = 0; i < requestsPerThread; i++) {
                    if (sent.incrementAndGet() == total / 2 && midway != null) {
                        restarting.set(true);
                        midway.run();
                        midwayDone.set(true);
                        restarting.set(false);
                    }
                    boolean restartingAtSend = restarting.get();
                    int status;
                    try {
                        status = Http.post(target, "/hooks/open", Map.of(), "{}".getBytes()).status();
                    } catch (RuntimeException refusedConnection) {
                        continue; // a connection that hit the restarting process as it closed: not admitted
                    }
                    if (status == 202) {
                        accepted.incrementAndGet();
                    } else if (status == 503 && (restartingAtSend || restarting.get())) {
                        // The stopping process answers what reaches it while it drains: not admitted.
                        unavailable.incrementAndGet();
                    } else {
                        assertThat(status).isEqualTo(429);
                        refused.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        assertThat(midwayDone).isTrue();
        return new Run(accepted.get(), refused.get(), elapsed);
    }

    @Test
    void twoProcessesOnOnePortAdmitOneLimit() throws Exception {
        int adminA = start(config("a"));
        int adminB = start(config("b"));
        Run run = hammer(8, 60, null);
        assertThat(run.accepted()).as("accepted %d in %.1f s", run.accepted(), run.elapsedSeconds())
                .isGreaterThanOrEqualTo(BURST)
                .isLessThanOrEqualTo(run.bound());
        assertThat(run.refused()).isPositive();
        // Both processes answered hooks: the kernel spread the connections over the two.
        assertThat(ingestRequests(adminA)).isPositive();
        assertThat(ingestRequests(adminB)).isPositive();
    }

    @Test
    void theLimitHoldsWhenOneProcessRestartsMidRun() throws Exception {
        int adminA = start(config("a"));
        Path configB = config("b");
        start(configB);
        AtomicLong restartedAdmin = new AtomicLong();
        Run run = hammer(8, 60, () -> {
            ChildJvm b = children.get(1);
            b.terminate();
            b.waitFor(Duration.ofSeconds(60));
            restartedAdmin.set(start(configB));
        });
        assertThat(run.accepted()).as("accepted %d in %.1f s", run.accepted(), run.elapsedSeconds())
                .isGreaterThanOrEqualTo(BURST)
                .isLessThanOrEqualTo(run.bound());
        assertThat(ingestRequests(adminA)).isPositive();
        assertThat(ingestRequests((int) restartedAdmin.get())).isPositive();
    }
}
