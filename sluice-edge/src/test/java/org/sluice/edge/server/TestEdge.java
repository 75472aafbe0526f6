package org.sluice.edge.server;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.netio.TestTransport;
import org.sluice.testkit.ManualClock;

/**
 * A real server on real sockets for black-box tests: loopback, ports chosen by the OS, its
 * store in a temp dir, and a manual clock under every limiter so counts are exact (no test
 * sleeps for a bucket to refill), on the transport {@link TestTransport} names.
 */
final class TestEdge implements AutoCloseable {

    /** The sections every test config starts with; {@code ${DATA}} is the temp dir. */
    static final String BASE = """
            node: {id: test, data_dir: "${DATA}"}
            admin: {listen: "127.0.0.1:0"}
            """;

    final ManualClock clock = new ManualClock(1_000_000_000_000L);
    final EdgeServer server;
    final InetSocketAddress address;

    private TestEdge(SluiceConfig config) {
        this(config, java.util.function.UnaryOperator.identity());
    }

    private TestEdge(SluiceConfig config, java.util.function.UnaryOperator<org.sluice.edge.intake.BatchCommitter> commitWrapper) {
        this.server = EdgeServer.builder(config).clock(clock).commitWrapper(commitWrapper).start();
        this.address = new InetSocketAddress("127.0.0.1", server.ingestAddress().getPort());
    }

    private TestEdge(java.util.function.UnaryOperator<EdgeServer.Builder> customize, SluiceConfig config) {
        this.server = customize.apply(EdgeServer.builder(config).clock(clock)).start();
        this.address = new InetSocketAddress("127.0.0.1", server.ingestAddress().getPort());
    }

    /** As {@link #start(Path, String)}, with more set on the builder (a wall clock, a commit wrapper). */
    static TestEdge startWith(Path dir, String yaml, java.util.function.UnaryOperator<EdgeServer.Builder> customize) {
        return new TestEdge(customize, config(dir, yaml));
    }

    /** As {@link #start(Path, String)}, with the intake's commit wrapped (a failure seam for tests). */
    static TestEdge start(Path dir, String yaml,
                          java.util.function.UnaryOperator<org.sluice.edge.intake.BatchCommitter> commitWrapper) {
        return new TestEdge(config(dir, yaml), commitWrapper);
    }

    /** Starts a server on {@link #BASE} plus {@code yaml} (which must hold an {@code http:} section). */
    static TestEdge start(Path dir, String yaml) {
        return new TestEdge(config(dir, yaml));
    }

    /** Starts a server on {@code yaml} alone, which names its own {@code node} and {@code admin} sections. */
    static TestEdge startWhole(Path dir, String yaml) {
        return new TestEdge(TestTransport.apply(ConfigLoader.parse(yaml, Map.of("DATA", dir.toString()), "test config")));
    }

    /** As {@link #startWhole(Path, String)}, with more set on the builder (a clock). */
    static TestEdge startWhole(Path dir, String yaml, java.util.function.UnaryOperator<EdgeServer.Builder> customize) {
        return new TestEdge(customize,
                TestTransport.apply(ConfigLoader.parse(yaml, Map.of("DATA", dir.toString()), "test config")));
    }

    static SluiceConfig config(Path dir, String yaml) {
        return TestTransport.apply(ConfigLoader.parse(BASE + yaml, Map.of("DATA", dir.toString()), "test config"));
    }

    Http.Response post(String path, Map<String, String> headers, String body) {
        return Http.post(address, path, headers, body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Waits (bounded: 30 s, then fails) until {@code condition} holds. Not a timing assertion. */
    static void await(java.util.function.BooleanSupplier condition) {
        org.sluice.testkit.Eventually.until("a condition of the test", condition);
    }

    /**
     * Occupies every ingest worker with a task that waits on the returned latch, and returns
     * once all of them run (bounded: fails after 30 s); counting the latch down frees them.
     */
    java.util.concurrent.CountDownLatch holdIngestWorkers() throws InterruptedException {
        java.util.concurrent.ForkJoinPool pool = server.ingestWorkers();
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(pool.getParallelism());
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        for (int i = 0; i < pool.getParallelism(); i++) {
            pool.execute(() -> {
                running.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        if (!running.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
            release.countDown();
            throw new AssertionError("the ingest workers were not all held within 30 s");
        }
        return release;
    }

    Backends backends() {
        return server.backends();
    }

    @Override
    public void close() {
        server.close();
    }
}
