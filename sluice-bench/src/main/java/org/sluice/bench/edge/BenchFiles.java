package org.sluice.bench.edge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/** What the edge benchmarks share: removing their scratch directories, and one summary of timed operations. */
final class BenchFiles {

    private BenchFiles() {
    }

    /** Deletes {@code dir} and everything under it, deepest first; a file that will not go is left. */
    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** {@code mean_ms=.. p50_ms=.. p99_ms=..} of the first {@code n} of {@code nanos} (n at least 1). */
    static String millisSummary(long[] nanos, int n) {
        long[] sorted = Arrays.copyOf(nanos, n);
        Arrays.sort(sorted);
        return String.format("mean_ms=%.3f p50_ms=%.3f p99_ms=%.3f", Arrays.stream(sorted).average().orElse(0) / 1e6,
                sorted[n / 2] / 1e6, sorted[Math.min(n - 1, (int) (n * 0.99))] / 1e6);
    }
}
