package org.sluice.bench.core;

import java.lang.management.ManagementFactory;
import java.util.function.ObjIntConsumer;

/**
 * Heap retained per live keyed row, not counting the key strings: the key strings are
 * created and retained first, the heap is measured after a full GC, then every key is
 * charged once and the heap is measured again after a full GC. The difference divided by
 * the number of keys is the cost of a row (table slot, bucket state, map entry).
 *
 * <p>Run with a stop-the-world collector for stable readings:
 * {@code java -XX:+UseSerialGC -Xmx4g -cp benchmarks.jar org.sluice.bench.core.HeapPerRow}
 */
public final class HeapPerRow {

    private HeapPerRow() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = "tenant-" + i;
            keys[i].hashCode();
        }
        System.out.printf("keys: %,d (key strings excluded from every figure)%n", n);
        measure("sluice RateLimiter", n, keys, () -> {
            var l = Competitors.sluice(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
            return (ObjIntConsumer<String>) (k, i) -> l.tryAcquire(k);
        });
        measure("yardstick CHM<String,AtomicLong>", n, keys, () -> {
            var l = new Yardstick(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
            return (ObjIntConsumer<String>) (k, i) -> l.tryAcquire(k);
        });
        measure("bucket4j in ConcurrentHashMap", n, keys, () -> {
            var l = new Competitors.Bucket4jMap(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
            return (ObjIntConsumer<String>) (k, i) -> l.tryAcquire(k);
        });
        measure("bucket4j in Caffeine", n, keys, () -> {
            var l = new Competitors.Bucket4jCaffeine(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
            return (ObjIntConsumer<String>) (k, i) -> l.tryAcquire(k);
        });
    }

    private static void measure(String name, int n, String[] keys,
                                java.util.function.Supplier<ObjIntConsumer<String>> factory) {
        long before = usedAfterGc();
        ObjIntConsumer<String> limiter = factory.get();
        for (int i = 0; i < n; i++) {
            limiter.accept(keys[i], i);
        }
        long after = usedAfterGc();
        System.out.printf("%-36s %6.1f bytes per row%n", name, (after - before) / (double) n);
        if (limiter.hashCode() == 42) { // keep the limiter reachable until after the reading
            System.out.print("");
        }
    }

    private static long usedAfterGc() {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
