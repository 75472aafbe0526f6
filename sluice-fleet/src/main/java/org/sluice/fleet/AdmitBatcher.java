package org.sluice.fleet;

import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * Group commit of script calls on a standalone store: concurrent {@link AdmitRequest}s
 * share one {@code EVALSHA admit.lua}, which decides them one after the other; a
 * {@link FleetLimiter}'s concurrent {@link LimitCall}s share one {@code EVALSHA limit.lua}
 * the same way (one batcher per script: {@link #forScript}). A call's arguments are the
 * count of entries, the script's header, then each entry's arguments in queue order;
 * its keys are each entry's keys in the same order.
 *
 * <p>Design. Callers enqueue (lock-free, many producers) into a {@link
 * ConcurrentLinkedQueue} bounded by an {@link AtomicInteger} reservation count, as in
 * {@link SettleQueue}: a caller reserves a place first and, past {@code queueMax}, gives
 * it back and its request fails at once ({@link #QUEUE_FULL}, answered node-local and
 * counted), so the queue never holds more than {@code queueMax} requests. An {@link
 * AtomicInteger} {@code inFlight} counts batches sent and not yet finished, at most
 * {@code inFlightMax}. Whoever enqueues, and whoever finishes a batch, then
 * <em>pumps</em>: while a slot is free (a CAS takes it) and the queue is not empty, it
 * drains up to {@code batchMax} requests and sends them as one call. There is no timer
 * and no waiting for company: a lone request takes a free slot and goes out at once;
 * requests pile up only while every slot is busy, and the next batch takes them all.
 *
 * <p>States of a request: queued (holding a reservation) -> drained (reservation given
 * back; in a batch in flight, or skipped because its future is already done — the
 * caller's budget ran out while it waited) -> done. States of a slot: free -> taken (CAS
 * on {@code inFlight}) -> sending -> in flight -> free. A slot is given back exactly once
 * on every path: an empty drain, the batch's reply, its error (a rejected or failed
 * command, NOSCRIPT's EVAL failing, an exception thrown while sending), and {@link
 * #BATCH_TIMEOUT} — a wheel-timer guard at {@code fleet.timeout_ms} that fails the batch
 * even if the command's own timeout never fired. So a batch whose reply never arrives
 * holds its slot for one budget at most, and the batcher cannot stall.
 *
 * <p>No lost wake-up: a producer offers, then reads {@code inFlight}; a finishing batch
 * decrements {@code inFlight}, then reads the queue. All four are volatile accesses, so
 * either the producer sees the free slot or the finisher sees the request. A finisher
 * that completes on the sending thread itself (a command rejected synchronously) leaves
 * the pumping to that thread's loop instead of recursing (see {@link Batch}).
 *
 * <p>Order: one connection carries every batch and Redis runs commands in arrival order;
 * within a batch the script runs requests in queue order. Requests for one tenant or one
 * dedupe key therefore see each other's effects as if each were its own call.
 */
final class AdmitBatcher {

    /** Requests queued at most (beyond those in flight); one more fails at once. */
    public static final int QUEUE_MAX = 16_384;
    /** Requests per script call at most. */
    public static final int BATCH_MAX = 128;
    /** Batches sent and not yet answered, at most. */
    public static final int IN_FLIGHT_MAX = 2;

    /** A request refused because the queue was full; shared, so it carries no stack trace. */
    static final IllegalStateException QUEUE_FULL = new IllegalStateException("fleet admission queue full") {
        @Override
        public Throwable fillInStackTrace() {
            return this;
        }
    };
    /** A batch that got no answer within the budget; shared, so it carries no stack trace. */
    static final TimeoutException BATCH_TIMEOUT = new TimeoutException("fleet batch exceeded fleet.timeout_ms") {
        @Override
        public Throwable fillInStackTrace() {
            return this;
        }
    };

    private final RedisLink link;
    private final Timer timer;
    private final Script script;
    /** The arguments after the count and before the first entry's (admit.lua: pending TTL, "now"). */
    private final String[] header;
    private final long timeoutMs;
    private final int queueMax;
    private final int batchMax;
    private final int inFlightMax;
    private final ConcurrentLinkedQueue<ScriptCall> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder batches = new LongAdder();
    private final LongAdder sent = new LongAdder();

    /** Admissions: {@code admit.lua}, the default bounds. */
    public AdmitBatcher(RedisLink link, long pendingTtlMs, long timeoutMs) {
        this(link, pendingTtlMs, timeoutMs, QUEUE_MAX, BATCH_MAX, IN_FLIGHT_MAX);
    }

    /** Admissions with explicit bounds (tests). */
    public AdmitBatcher(RedisLink link, long pendingTtlMs, long timeoutMs, int queueMax, int batchMax, int inFlightMax) {
        this(link, Script.ADMIT, admitHeader(Long.toString(pendingTtlMs)), timeoutMs, queueMax, batchMax, inFlightMax);
    }

    /** Calls of {@code script}, whose arguments are the count, {@code header}, then the entries'. */
    static AdmitBatcher forScript(RedisLink link, Script script, String[] header, long timeoutMs,
                                  int queueMax, int batchMax, int inFlightMax) {
        return new AdmitBatcher(link, script, header, timeoutMs, queueMax, batchMax, inFlightMax);
    }

    private AdmitBatcher(RedisLink link, Script script, String[] header, long timeoutMs,
                         int queueMax, int batchMax, int inFlightMax) {
        if (queueMax < 1 || batchMax < 1 || inFlightMax < 1) {
            throw new IllegalArgumentException("queueMax, batchMax and inFlightMax must be at least 1, got "
                    + queueMax + ", " + batchMax + ", " + inFlightMax);
        }
        this.link = link;
        this.timer = link.timer();
        this.script = script;
        this.header = header.clone();
        this.timeoutMs = timeoutMs;
        this.queueMax = queueMax;
        this.batchMax = batchMax;
        this.inFlightMax = inFlightMax;
    }

    /** Queues {@code r} and sends it now if a slot is free; a full queue fails it at once (counted). */
    public void submit(ScriptCall r) {
        if (queued.incrementAndGet() > queueMax) {
            queued.decrementAndGet();
            rejected.increment();
            r.completeExceptionally(QUEUE_FULL);
            return;
        }
        queue.offer(r);
        pump();
    }

    /** Sends batches while a slot is free and requests wait. */
    private void pump() {
        for (;;) {
            int f = inFlight.get();
            if (f >= inFlightMax || queue.peek() == null) {
                return;
            }
            if (!inFlight.compareAndSet(f, f + 1)) {
                continue;
            }
            ScriptCall[] batch = new ScriptCall[Math.min(batchMax, Math.max(1, queued.get()))];
            int n = 0;
            int keyCount = 0;
            int argCount = 0;
            ScriptCall r;
            while (n < batch.length && (r = queue.poll()) != null) {
                queued.decrementAndGet();
                if (r.isDone()) {
                    continue; // its budget ran out while it waited: nothing to send
                }
                batch[n++] = r;
                keyCount += r.keyCount();
                argCount += r.argCount();
            }
            if (n == 0) {
                inFlight.decrementAndGet();
                continue;
            }
            send(batch, n, keyCount, argCount);
        }
    }

    private void send(ScriptCall[] batch, int n, int keyCount, int argCount) {
        CompletableFuture<List<Object>> reply;
        try {
            String[] keys = new String[keyCount];
            String[] args = new String[1 + header.length + argCount];
            writeEntries(batch, n, header, keys, args);
            RedisLink.Channel ch = link.requests();
            if (ch == null) {
                throw new IllegalStateException("fleet store not connected");
            }
            reply = script.eval(ch, ScriptOutputType.MULTI, keys, args);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        batches.increment();
        sent.add(n);
        Batch b = new Batch(batch, n, reply);
        if (!reply.isDone()) {
            try {
                b.guard = timer.newTimeout(b, timeoutMs, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) { // the timer is stopped (the client is closing)
                reply.completeExceptionally(e);
            }
        }
        reply.whenComplete(b);
        b.registered = true;
    }

    /**
     * A batch in flight: gives its slot back when its reply (or error, or guard timeout)
     * arrives, pumps the next batch, then completes each request. {@code registered}
     * tells a completion on the sending thread itself (the reply was already there when
     * the callback was added) not to pump: the sender's loop is still running and picks
     * the freed slot up, so a run of synchronous failures does not recurse.
     */
    private final class Batch implements BiConsumer<List<Object>, Throwable>, io.netty.util.TimerTask {
        private final ScriptCall[] requests;
        private final int n;
        private final CompletableFuture<List<Object>> reply;
        volatile Timeout guard;
        volatile boolean registered;

        Batch(ScriptCall[] requests, int n, CompletableFuture<List<Object>> reply) {
            this.requests = requests;
            this.n = n;
            this.reply = reply;
        }

        @Override
        public void run(Timeout timeout) {
            reply.completeExceptionally(BATCH_TIMEOUT);
        }

        @Override
        public void accept(List<Object> value, Throwable err) {
            Timeout g = guard;
            if (g != null) {
                g.cancel();
            }
            inFlight.decrementAndGet();
            try {
                if (registered) {
                    pump();
                }
            } finally {
                deliver(value, err);
            }
        }

        private void deliver(List<Object> value, Throwable err) {
            if (err == null && (value == null || value.size() != n)) {
                err = new IllegalStateException("unexpected batch reply for " + n + " requests: " + value);
            }
            for (int i = 0; i < n; i++) {
                if (err != null) {
                    requests[i].completeExceptionally(err);
                } else {
                    completeWith(requests[i], value.get(i));
                }
            }
        }
    }

    /** Completes {@code r} with its entry of a script reply: a list, or an unexpected reply. */
    @SuppressWarnings("unchecked")
    private static void completeWith(ScriptCall r, Object entry) {
        if (entry instanceof List<?> list) {
            r.complete((List<Object>) list);
        } else {
            r.completeExceptionally(new IllegalStateException("unexpected reply entry " + entry));
        }
    }

    /** Requests refused because the queue was full. */
    public long rejected() {
        return rejected.sum();
    }

    /** Script calls sent. */
    public long batches() {
        return batches.sum();
    }

    /** Requests sent (in all batches). */
    public long sent() {
        return sent.sum();
    }

    /**
     * Requests queued now: reservations, including ones whose budget already ran out;
     * may exceed the bound by the producers in the middle of being refused.
     */
    public int queued() {
        return Math.max(0, queued.get());
    }

    /** Requests in the queue now, counted one by one (O(n); tests). */
    int queueLength() {
        return queue.size();
    }

    /** Batches in flight now. */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Sends {@code r} alone (a cluster, where each tenant lives in its own slot): one call,
     * not queued, no slot.
     */
    public static void sendAlone(RedisLink.Channel ch, AdmitRequest r, String pendingTtlMs) {
        sendAlone(ch, Script.ADMIT, admitHeader(pendingTtlMs), r);
    }

    /** Sends {@code r} alone as a call of {@code script} with {@code header} (a cluster). */
    static void sendAlone(RedisLink.Channel ch, Script script, String[] header, ScriptCall r) {
        String[] keys = new String[r.keyCount()];
        String[] args = new String[1 + header.length + r.argCount()];
        writeEntries(new ScriptCall[] {r}, 1, header, keys, args);
        CompletableFuture<List<Object>> reply = script.eval(ch, ScriptOutputType.MULTI, keys, args);
        reply.whenComplete((value, err) -> {
            if (err != null) {
                r.completeExceptionally(err);
            } else if (value == null || value.size() != 1) {
                r.completeExceptionally(new IllegalStateException("unexpected reply " + value));
            } else {
                completeWith(r, value.get(0));
            }
        });
    }

    /** admit.lua's header: the pending TTL, and "now" from Redis's own clock. */
    private static String[] admitHeader(String pendingTtlMs) {
        return new String[] {pendingTtlMs, ""};
    }

    /** Lays out a call: the count, the header, then each entry's arguments and keys in order. */
    private static void writeEntries(ScriptCall[] batch, int n, String[] header, String[] keys, String[] args) {
        args[0] = Integer.toString(n);
        System.arraycopy(header, 0, args, 1, header.length);
        int k = 0;
        int a = 1 + header.length;
        for (int i = 0; i < n; i++) {
            batch[i].writeTo(keys, k, args, a);
            k += batch[i].keyCount();
            a += batch[i].argCount();
        }
    }
}
