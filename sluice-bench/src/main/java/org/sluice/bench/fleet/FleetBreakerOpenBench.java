package org.sluice.bench.fleet;

import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.sluice.core.Limit;
import org.sluice.core.RateLimiter;
import org.sluice.fleet.BreakerState;
import org.sluice.fleet.FleetAnswer;
import org.sluice.fleet.FleetClient;
import org.sluice.fleet.FleetGcra;
import org.sluice.fleet.FleetSettings;

/**
 * What an admission costs while the fleet breaker is open, against the node-local
 * limiter alone: the edge answers an open-breaker hook by asking the fleet client (a
 * prebuilt completed answer, no store call) and then charging its own buckets.
 *
 * <pre>java -jar sluice-bench/target/benchmarks.jar FleetBreakerOpenBench</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FleetBreakerOpenBench {

    private final long inc = FleetGcra.micros(1, 1e9);
    private final long tol = FleetGcra.micros(1_000_000_000, 1e9);
    private FleetClient fleet;
    private RateLimiter local;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // nothing listens here: the store is down
        }
        FleetSettings settings = FleetSettings.defaults().withRedis("redis://127.0.0.1:" + deadPort)
                .withBreaker(0.5, 1, 10_000, 3_600_000); // one failure opens it, for an hour
        fleet = FleetClient.start(settings, "bench-open");
        fleet.admit("t", "s", null, inc, tol, 0, 0, true, false).toCompletableFuture().join();
        if (fleet.state() != BreakerState.OPEN) {
            throw new IllegalStateException("breaker should be open, is " + fleet.state());
        }
        local = RateLimiter.builder().limit(Limit.of(1e9, 1_000_000_000)).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fleet.close();
    }

    @Benchmark
    public long nodeLocal() {
        return local.tryAcquire("tenant-a");
    }

    @Benchmark
    public long breakerOpenThenNodeLocal() {
        FleetAnswer a = fleet.admit("tenant-a", "src", null, inc, tol, 0, 0, true, false)
                .toCompletableFuture().getNow(null);
        if (!(a instanceof FleetAnswer.Fallback)) {
            throw new IllegalStateException("expected a fallback, got " + a);
        }
        return local.tryAcquire("tenant-a");
    }
}
