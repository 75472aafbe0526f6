package org.sluice.edge.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.sluice.edge.threads.Threads;

/**
 * One open-loop run: a scheduler thread offers request {@code i} at
 * {@code start + i * 1e9 / rate} nanoseconds, the calling thread samples the counters and the
 * latency once a second, and a {@link ConnectionPool} sends.
 *
 * <p>The scheduler never waits for an answer. When it falls behind (a pause of its own) it
 * sends every request that is due at once; their latency still counts from their intended
 * times. Requests wait for a free connection in a queue bounded at ten seconds of arrivals;
 * a request beyond the bound is counted {@code not_sent} instead of queued.
 *
 * <p>After {@code duration} no request is offered; the run waits up to {@link #DRAIN_NANOS}
 * for what is queued and on the wire, then closes the connections: a request still queued
 * is {@code not_sent}, one still on the wire an error.
 */
public final class LoadRun {

    /** How long the run waits for outstanding answers after the last request is offered. */
    static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int MAX_BATCH = 1024;

    /** The counters and latency of one second of the run ({@code t} = seconds since the start, from 1). */
    public record Second(int t, LoadStats.Snapshot delta, Histogram latency) {
    }

    /** What a run produced: the summary (the {@code --json} document) and its seconds. */
    public record Result(Map<String, Object> summary, List<Second> seconds) {
    }

    private LoadRun() {
    }

    /**
     * Runs the load; {@code progress} gets one line a second.
     *
     * @throws IllegalArgumentException when the options have a problem (every one named)
     * @throws IllegalStateException    when no connection to the URL could be opened
     */
    public static Result run(LoadOptions options, Consumer<String> progress) throws InterruptedException {
        List<String> problems = options.problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        double planned = options.rate() * (options.durationNanos() / 1e9);
        if (planned > 1e12) {
            throw new IllegalArgumentException("--rate times --duration must be at most 10^12 requests, got " + (long) planned);
        }
        long total = (long) planned;
        LoadStats stats = new LoadStats();
        HookFactory factory = new HookFactory(options);
        try {
            factory.sign(new HookFactory.Event("probe", "/", new byte[0]), 0, false); // a bad secret fails here, not mid-run
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--secret must be base64 after an optional \"whsec_\" prefix for --scheme "
                    + options.scheme() + ", got a " + options.secret().length() + "-character value (redacted)");
        }
        int maxPending = (int) Math.min(Integer.MAX_VALUE - 1, Math.max(options.connections(), options.rate() * 10));
        try (ConnectionPool pool = new ConnectionPool(options, stats, factory, maxPending)) {
            if (pool.connect(10_000) == 0) {
                throw new IllegalStateException("cannot connect to " + options.url());
            }
            long start = System.nanoTime();
            Thread scheduler = Threads.daemon(() -> offer(options, factory, pool, stats, start, total), "sluice-load-scheduler");
            LoadStats.Snapshot first = stats.snapshot(); // before any request: the seconds' deltas add up to the total
            scheduler.start();

            List<Second> seconds = new ArrayList<>();
            Histogram totalLatency = new Histogram(LoadStats.MAX_MICROS, 3);
            LoadStats.Snapshot previous = first;
            long drainDeadline = Long.MAX_VALUE;
            for (int t = 1; ; t++) {
                long due = start + t * SECOND;
                boolean last = false;
                while (true) {
                    long now = System.nanoTime();
                    if (drainDeadline == Long.MAX_VALUE && !scheduler.isAlive()) {
                        drainDeadline = now + DRAIN_NANOS;
                    }
                    if (drainDeadline != Long.MAX_VALUE && (pool.idleNow() || now - drainDeadline >= 0)) {
                        last = true;
                        break;
                    }
                    if (now - due >= 0) {
                        break;
                    }
                    LockSupport.parkNanos(Math.min(due - now, TimeUnit.MILLISECONDS.toNanos(20)));
                }
                if (last) {
                    pool.close();
                }
                LoadStats.Snapshot now = stats.snapshot();
                Histogram h = stats.interval(null);
                totalLatency.add(h);
                Second s = new Second(t, minus(now, previous), h);
                seconds.add(s);
                previous = now;
                progress.accept(line(s, now));
                if (last) {
                    long elapsed = System.nanoTime() - start;
                    return new Result(LoadSummary.of(options, stats, now, totalLatency, elapsed), seconds);
                }
            }
        }
    }

    private static void offer(LoadOptions options, HookFactory factory, ConnectionPool pool, LoadStats stats,
                              long start, long total) {
        long i = 0;
        List<HookFactory.Hook> batch = new ArrayList<>();
        while (i < total) {
            long now = System.nanoTime();
            long next = start + intended(i, options.rate());
            if (next - now > 0) {
                LockSupport.parkNanos(next - now);
                continue;
            }
            long epochSeconds = System.currentTimeMillis() / 1000;
            while (i < total && batch.size() < MAX_BATCH && start + intended(i, options.rate()) - now <= 0) {
                batch.add(factory.next(start + intended(i, options.rate()), epochSeconds));
                i++;
            }
            stats.offered.addAndGet(batch.size());
            pool.submit(batch);
            batch = new ArrayList<>();
        }
    }

    /** Nanoseconds from the start at which request {@code i} is due. */
    static long intended(long i, long rate) {
        return i / rate * SECOND + i % rate * SECOND / rate; // exact, no overflow for rate <= 10^9
    }

    private static LoadStats.Snapshot minus(LoadStats.Snapshot a, LoadStats.Snapshot b) {
        Map<Integer, Long> status = new java.util.TreeMap<>();
        a.byStatus().forEach((k, v) -> status.put(k, v - b.byStatus().getOrDefault(k, 0L)));
        Map<String, Long> scope = new java.util.TreeMap<>();
        a.byScope().forEach((k, v) -> scope.put(k, v - b.byScope().getOrDefault(k, 0L)));
        return new LoadStats.Snapshot(a.offered() - b.offered(), a.sent() - b.sent(), a.errors() - b.errors(),
                a.notSent() - b.notSent(), status, scope);
    }

    /** The progress line: cumulative counts, this second's p50/p99. */
    static String line(Second s, LoadStats.Snapshot c) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("%4ds sent %d  202 %d  200 %d  401 %d  429 %d", s.t(), c.sent(), c.status(202),
                c.status(200), c.status(401), c.status(429)));
        if (!c.byScope().isEmpty()) {
            b.append(" (");
            boolean first = true;
            for (Map.Entry<String, Long> e : c.byScope().entrySet()) {
                b.append(first ? "" : " ").append(e.getKey()).append(' ').append(e.getValue());
                first = false;
            }
            b.append(')');
        }
        b.append("  503 ").append(c.status(503));
        long other = c.responses() - c.status(202) - c.status(200) - c.status(401) - c.status(429) - c.status(503);
        if (other > 0) {
            b.append("  other ").append(other);
        }
        if (c.errors() > 0) {
            b.append("  errors ").append(c.errors());
        }
        if (c.notSent() > 0) {
            b.append("  not_sent ").append(c.notSent());
        }
        if (s.latency().getTotalCount() > 0) {
            b.append(String.format("  p50 %.2fms p99 %.2fms", s.latency().getValueAtPercentile(50) / 1000.0,
                    s.latency().getValueAtPercentile(99) / 1000.0));
        }
        return b.toString();
    }
}
