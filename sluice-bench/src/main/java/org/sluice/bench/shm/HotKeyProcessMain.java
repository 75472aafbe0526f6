package org.sluice.bench.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.sluice.shm.SharedArena;
import org.sluice.shm.SharedRate;

/**
 * One of several processes checking one hot key in one arena, for the combined
 * checks-per-second figure (run two at once; {@code scripts/shm-bench.sh} does).
 *
 * <pre>
 * args: arenaFile seconds goFile [limitPerSecond]
 * prints: "checks N admitted M seconds S rate R/s"
 * </pre>
 * The policy defaults to 1 000 000 per second, the highest a shared bucket holds, so the
 * key keeps admitting (every admission is a contended compare-and-swap between the
 * processes) as well as refusing.
 */
public final class HotKeyProcessMain {

    private HotKeyProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        long seconds = Long.parseLong(args[1]);
        Path go = Path.of(args[2]);
        long limit = args.length > 3 ? Long.parseLong(args[3]) : 1_000_000L;
        try (SharedArena arena = SharedArena.create(file, 1 << 20)) {
            SharedRate rate = arena.rate("hot", limit, Duration.ofSeconds(1), 64);
            // warm up the JIT before the start gate
            for (int i = 0; i < 2_000_000; i++) {
                rate.allow("warm-" + (i & 63));
            }
            while (!Files.exists(go)) {
                Thread.sleep(1);
            }
            long checks = 0;
            long admitted = 0;
            long start = System.nanoTime();
            long end = start + Duration.ofSeconds(seconds).toNanos();
            while (true) {
                for (int i = 0; i < 1024; i++) {
                    admitted += rate.allow("203.0.113.7") ? 1 : 0;
                }
                checks += 1024;
                if (System.nanoTime() >= end) {
                    break;
                }
            }
            double took = (System.nanoTime() - start) / 1e9;
            System.out.printf("checks %d admitted %d seconds %.3f rate %.0f/s contended %d%n",
                    checks, admitted, took, checks / took, rate.stats().contended());
        }
    }
}
