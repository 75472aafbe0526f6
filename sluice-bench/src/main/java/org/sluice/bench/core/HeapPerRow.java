package org.sluice.bench.core;

import java.lang.management.ManagementFactory;
import java.util.function.ObjIntConsumer;

/**
 * Heap retained per live keyed row, not counting the key strings: the key strings are
 * created and retained first, the heap is measured after a full GC, then every key is
 * charged once and the heap is measured again after a full GC. The difference divided by
 * the number of keys is the cost of a row (table slot, bucket state, map entry).
 *
 * <p>Run one implementation per JVM, with a stop-the-world collector for stable readings:
 * {@code java -XX:+UseSerialGC -Xmx4g -cp benchmarks.jar org.sluice.bench.core.HeapPerRow 1000000 sluice}
 * (implementations: sluice, yardstick, bucket4j-map, bucket4j-caffeine).
 */
public final class HeapPerRow {

    private HeapPerRow() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        String only = args.length > 1 ? args[1] : "sluice";
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = "tenant-" + i;
            var unused = keys[i].hashCode(); // caches the string's hash now, outside the measurement
        }
        ObjIntConsumer<String> limiter = switch (only) {
            case "sluice" -> {
                var l = Competitors.sluice(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
                yield (k, i) -> l.tryAcquire(k);
            }
            case "yardstick" -> {
                var l = new Yardstick(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
                yield (k, i) -> l.tryAcquire(k);
            }
            case "bucket4j-map" -> {
                var l = new Competitors.Bucket4jMap(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
                yield (k, i) -> l.tryAcquire(k);
            }
            case "bucket4j-caffeine" -> {
                var l = new Competitors.Bucket4jCaffeine(ManyKeysBenchmark.RATE, ManyKeysBenchmark.BURST);
                yield (k, i) -> l.tryAcquire(k);
            }
            default -> throw new IllegalArgumentException("unknown implementation " + only);
        };
        measure(only, n, keys, limiter);
    }

    private static void measure(String name, int n, String[] keys, ObjIntConsumer<String> limiter) {
        try {
            long before = usedAfterGc();
            for (int i = 0; i < n; i++) {
                limiter.accept(keys[i], i);
            }
            long after = usedAfterGc();
            System.out.printf("%-36s %6.1f bytes per row (%,d keys, key strings excluded)%n",
                    name, (after - before) / (double) n, n);
        } finally { // the limiter and the keys must stay reachable until the second reading
            java.lang.ref.Reference.reachabilityFence(limiter);
            java.lang.ref.Reference.reachabilityFence(keys);
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
