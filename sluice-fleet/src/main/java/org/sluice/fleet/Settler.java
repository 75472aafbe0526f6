package org.sluice.fleet;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Drains the {@link SettleQueue} in pipelined batches: up to {@link #BATCH} {@code
 * EVALSHA settle.lua} written on the auto-flush-off connection and flushed together, so
 * one batch is one round trip. Runs only on the fleet's background thread, never on a
 * request thread. Nothing is drained while the breaker is not closed (no store call at
 * all while it is open); the queue holds the operations meanwhile (bounded).
 *
 * <p>A batch whose replies say {@code NOSCRIPT} (the store restarted empty) loads the
 * script and sends those operations once more. An operation whose send fails on the
 * connection (not connected, lost, no reply in time) goes back to the queue for a later
 * tick; one answered with an error reply is counted as failed: it costs what a dropped
 * one costs (see docs/fleet.md).
 */
final class Settler {

    static final int BATCH = 512;
    private static final long REPLY_WAIT_MS = 3_000;

    private final SettleQueue queue;
    private final RedisLink link;
    private final BooleanSupplier storeAllowed;
    private final LongAdder promoted = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder failed = new LongAdder();

    public Settler(SettleQueue queue, RedisLink link, BooleanSupplier storeAllowed) {
        this.queue = queue;
        this.link = link;
        this.storeAllowed = storeAllowed;
    }

    /** Drains until the queue is empty (or the store may not be called). Background thread only. */
    public void drain() {
        while (queue.depth() > 0 && storeAllowed.getAsBoolean()) {
            RedisLink.Channel ch = link.batch();
            if (ch == null || !ch.connection().isOpen()) {
                return; // not connected: keep everything for a later tick
            }
            List<SettleQueue.Op> ops = new ArrayList<>(Math.min(BATCH, queue.depth()));
            SettleQueue.Op op;
            while (ops.size() < BATCH && (op = queue.poll()) != null) {
                ops.add(op);
            }
            if (ops.isEmpty()) {
                return;
            }
            Outcome first = send(ch, ops);
            Outcome second = null;
            if (!first.noScript.isEmpty()) {
                RedisFuture<String> load = ch.scripting().scriptLoad(Script.SETTLE.body());
                ch.connection().flushCommands();
                try {
                    load.get(REPLY_WAIT_MS, TimeUnit.MILLISECONDS);
                    second = send(ch, first.noScript);
                    failed.add(second.noScript.size());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    requeueAll(first.noScript);
                    return;
                } catch (ExecutionException | TimeoutException e) {
                    requeueAll(first.noScript);
                }
            }
            boolean connectionTrouble = !first.retry.isEmpty() || (second != null && !second.retry.isEmpty());
            requeueAll(first.retry);
            if (second != null) {
                requeueAll(second.retry);
            }
            if (connectionTrouble || Thread.currentThread().isInterrupted()) {
                return; // the next tick tries again
            }
        }
    }

    /**
     * Operations that failed on the connection go back to the queue for a later tick (the
     * queue's bound still holds: a full queue drops and counts them).
     */
    private void requeueAll(List<SettleQueue.Op> ops) {
        for (SettleQueue.Op op : ops) {
            queue.requeue(op);
        }
    }

    private record Outcome(List<SettleQueue.Op> noScript, List<SettleQueue.Op> retry) {
    }

    /** Sends one batch in one flush; sorts out the operations to send again. */
    private Outcome send(RedisLink.Channel ch, List<SettleQueue.Op> ops) {
        List<RedisFuture<Long>> replies = new ArrayList<>(ops.size());
        for (SettleQueue.Op op : ops) {
            String[] keys = {op.key()};
            replies.add(op.promote()
                    ? ch.scripting().evalsha(Script.SETTLE.sha(), ScriptOutputType.INTEGER, keys,
                            "c", op.token(), op.hookId(), Long.toString(op.ttlSeconds()))
                    : ch.scripting().evalsha(Script.SETTLE.sha(), ScriptOutputType.INTEGER, keys,
                            "r", op.token()));
        }
        ch.connection().flushCommands();
        Outcome out = new Outcome(new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < ops.size(); i++) {
            try {
                Long done = replies.get(i).get(REPLY_WAIT_MS, TimeUnit.MILLISECONDS);
                if (done != null && done == 1L) {
                    (ops.get(i).promote() ? promoted : released).increment();
                } else {
                    skipped.increment();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.retry.addAll(ops.subList(i, ops.size()));
                return out;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RedisNoScriptException) {
                    out.noScript.add(ops.get(i));
                } else if (e.getCause() instanceof RedisCommandExecutionException) {
                    failed.increment(); // an error reply: sending it again would not help
                } else {
                    out.retry.add(ops.get(i)); // not connected, connection lost, command timeout
                }
            } catch (TimeoutException e) {
                out.retry.add(ops.get(i));
            }
        }
        return out;
    }

    public long promoted() {
        return promoted.sum();
    }

    public long released() {
        return released.sum();
    }

    public long skipped() {
        return skipped.sum();
    }

    public long failed() {
        return failed.sum();
    }
}
