package org.sluice.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.core.Clock;

/**
 * A child process for {@link MultiProcessTest}: several threads calling {@code allow}
 * on one carve as fast as they can.
 *
 * <pre>
 * args: file limit windowMillis slots threads clock keys durationMillis goFile
 *   clock:    "system", or "frozen:NANOS" (a clock stuck at NANOS, the same in every child)
 *   duration: milliseconds of System.nanoTime after the go file appears, or "forever"
 * prints: "access raw" or "access view" (see MappedWords), "ready"; then "progress N" (N = admitted so far) now and then; at the end
 *   "start NANOS", "end NANOS", "calls N", "key I N" per key, "admitted N", "done"
 * </pre>
 */
public final class HammerMain {

    private HammerMain() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        long limit = Long.parseLong(args[1]);
        Duration window = Duration.ofMillis(Long.parseLong(args[2]));
        int slots = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        Clock clock = clock(args[5]);
        int keys = Integer.parseInt(args[6]);
        long durationNanos = args[7].equals("forever") ? Long.MAX_VALUE : Duration.ofMillis(Long.parseLong(args[7])).toNanos();
        Path go = Path.of(args[8]);

        SharedArena arena = SharedArena.create(file, 8 << 20);
        SharedRate rate = arena.rate("hammer", limit, window, slots, clock);
        String[] names = new String[keys];
        for (int k = 0; k < keys; k++) {
            names[k] = "key-" + k;
        }
        System.out.println("access " + (MappedWords.RAW ? "raw" : "view"));
        System.out.println("ready");
        awaitGo(go);

        long start = System.nanoTime();
        long[][] admitted = new long[threads][keys];
        AtomicLong calls = new AtomicLong();
        AtomicLong total = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                long[] mine = admitted[id];
                long n = 0;
                int k = id % keys;
                while (true) {
                    if (rate.allow(names[k])) {
                        mine[k]++;
                        long sum = total.incrementAndGet();
                        if (id == 0 && durationNanos == Long.MAX_VALUE && (sum & 0x3FFF) == 0) {
                            System.out.println("progress " + sum);
                        }
                    }
                    k = k + 1 == keys ? 0 : k + 1;
                    if ((++n & 0xFF) == 0 && System.nanoTime() - start >= durationNanos) {
                        break;
                    }
                }
                calls.addAndGet(n);
            }, "hammer-" + t);
            w.start();
            workers.add(w);
        }
        for (Thread w : workers) {
            w.join();
        }
        long end = System.nanoTime();
        System.out.println("start " + start);
        System.out.println("end " + end);
        System.out.println("calls " + calls.get());
        long sum = 0;
        for (int k = 0; k < keys; k++) {
            long n = 0;
            for (int t = 0; t < threads; t++) {
                n += admitted[t][k];
            }
            sum += n;
            System.out.println("key " + k + " " + n);
        }
        System.out.println("admitted " + sum);
        System.out.println("done");
        arena.close();
    }

    static Clock clock(String spec) {
        if (spec.equals("system")) {
            return Clock.system();
        }
        long frozen = Long.parseLong(spec.substring("frozen:".length()));
        return () -> frozen;
    }

    static void awaitGo(Path go) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!Files.exists(go)) {
            if (System.nanoTime() > deadline) {
                System.err.println("no go file " + go);
                System.exit(3);
            }
            Thread.sleep(1); // a start gate, not a wait for refill
        }
    }
}
