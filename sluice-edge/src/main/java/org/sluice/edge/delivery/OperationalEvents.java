package org.sluice.edge.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.HookLog;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.threads.Threads;

/**
 * Sluice's own operational events, made into hooks: each is committed to the hook log as a
 * hook of the built-in source (tenant and source given by the server: {@code sluice} and
 * {@code sluice.events}) with the JSON body {@code {"type","timestamp","data"}} and a pending
 * delivery to each of its destinations, so it is stored, retried, signed and redelivered as
 * any hook is (docs/delivery.md, "Operational events").
 *
 * <p>The dispatcher's threads call the {@link DeliveryEvents} methods; they put the event on a
 * bounded queue and return. One thread, {@code sluice-events}, commits them in order, trying a
 * commit the store refused again (after a second) until it is taken or the events close. A
 * full queue (the store has refused for a long while) drops the newest event with a warning.
 *
 * <p>{@code dead_letter.created} is rate-limited per destination: the first dead letter of a
 * destination makes an event at once, further ones within {@code deadLetterIntervalMillis}
 * of it make none and are counted, and the next event of that destination (the first dead
 * letter after the interval) carries that count as {@code data.suppressed}. Dead letters of
 * the events' own hooks make no event (an events destination that fails would feed itself).
 */
public final class OperationalEvents implements DeliveryEvents, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OperationalEvents.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Events waiting for their commit. */
    static final int QUEUE = 10_000;
    private static final long RETRY_MS = 1_000;

    private final HookLog log;
    private final String tenant;
    private final String source;
    private final List<String> deliverTo;
    private final long deadLetterIntervalMillis;
    private final LongSupplier wallMillis;
    private final BlockingQueue<PendingHook> queue = new ArrayBlockingQueue<>(QUEUE);
    private final Thread committer;
    private volatile boolean closed;

    /** Per destination: when its last dead_letter.created was made, and the dead letters since that made none. */
    @GuardedBy("windows")
    private final Map<String, long[]> windows = new HashMap<>();

    /**
     * Starts the committing thread.
     *
     * @param log                      where the events are committed
     * @param tenant                   the tenant of the event hooks
     * @param source                   the source of the event hooks
     * @param deliverTo                the destinations of every event
     * @param deadLetterIntervalMillis at most one dead_letter.created per destination per this
     * @param wallMillis               the events' {@code timestamp} and received time (epoch ms)
     */
    public OperationalEvents(HookLog log, String tenant, String source, List<String> deliverTo,
                             long deadLetterIntervalMillis, LongSupplier wallMillis) {
        this.log = log;
        this.tenant = tenant;
        this.source = source;
        this.deliverTo = List.copyOf(deliverTo);
        this.deadLetterIntervalMillis = deadLetterIntervalMillis;
        this.wallMillis = wallMillis;
        this.committer = Threads.daemon(this::commitLoop, "sluice-events");
        committer.start();
    }

    // ---------------------------------------------------------------- the events

    @Override
    public void disabled(String destination, DisabledDestination disabled) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("destination", destination);
        data.put("disabled_at", Instant.ofEpochMilli(disabled.atMillis()).toString());
        data.put("last_error", disabled.lastError());
        offer("destination.disabled", disabled.atMillis(), data);
    }

    @Override
    public void recovered(String destination, long nowMs) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("destination", destination);
        offer("destination.recovered", nowMs, data);
    }

    @Override
    public void deadLetter(String destination, String hookId, String hookSource, String reason, Integer status,
                           String error, long nowMs) {
        if (source.equals(hookSource)) {
            return;
        }
        long suppressed;
        synchronized (windows) {
            long[] w = windows.get(destination);
            if (w != null && nowMs - w[0] < deadLetterIntervalMillis) {
                w[1]++;
                return;
            }
            suppressed = w == null ? 0 : w[1];
            windows.put(destination, new long[] {nowMs, 0});
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("destination", destination);
        data.put("hook_id", hookId);
        data.put("source", hookSource);
        data.put("reason", reason);
        data.put("last_status", status);
        data.put("last_error", error);
        data.put("suppressed", suppressed);
        offer("dead_letter.created", nowMs, data);
    }

    /**
     * The store's size reached {@code store.max_bytes} × {@code percent} / 100 (the server's
     * size check tells once per crossing): {@code store.nearly_full}.
     */
    public void storeNearlyFull(long bytes, long maxBytes, int percent) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("bytes", bytes);
        data.put("max_bytes", maxBytes);
        data.put("threshold_percent", percent);
        offer("store.nearly_full", wallMillis.getAsLong(), data);
    }

    private void offer(String type, long atMillis, Map<String, Object> data) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("type", type);
        event.put("timestamp", Instant.ofEpochMilli(atMillis).toString());
        event.put("data", data);
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render the event " + type + " as JSON", e);
        }
        PendingHook hook = new PendingHook(tenant, source, null, wallMillis.getAsLong(),
                Map.of("Content-Type", "application/json"), body, deliverTo);
        if (closed || !queue.offer(hook)) {
            LOG.warn("the operational event {} is dropped: {}", type, closed ? "the events are closed"
                    : QUEUE + " events wait for a store that refuses them");
        }
    }

    // ---------------------------------------------------------------- committing

    private void commitLoop() {
        while (!closed || !queue.isEmpty()) {
            PendingHook hook;
            try {
                hook = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (hook != null && !commit(hook)) {
                return;
            }
        }
    }

    /** Commits {@code hook}, again after a refusal, until taken; false when interrupted or closed meanwhile. */
    private boolean commit(PendingHook hook) {
        while (true) {
            String why;
            try {
                CommitResult r = log.commit(List.of(hook)).get(0);
                if (r.status() == CommitResult.Status.ACCEPTED || r.status() == CommitResult.Status.DUPLICATE) {
                    return true;
                }
                why = r.status().name();
            } catch (HookStoreException e) {
                why = e.getMessage();
            }
            if (closed) {
                LOG.warn("an operational event was not committed before the events closed: {}", why);
                return false;
            }
            LOG.warn("committing an operational event failed ({}); trying again in {} ms", why, RETRY_MS);
            try {
                Thread.sleep(RETRY_MS);
            } catch (InterruptedException e) {
                return false;
            }
        }
    }

    /** Commits the events queued (a store that refuses is given up on), then stops the thread; before the store closes. */
    @Override
    public void close() {
        closed = true;
        try {
            committer.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (committer.isAlive()) {
            committer.interrupt();
        }
    }
}
