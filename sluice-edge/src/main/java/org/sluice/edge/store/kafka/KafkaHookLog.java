package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.HookLog;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.HookSummary;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.ReplaySource;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.UuidV7;
import org.sluice.edge.store.WorkingSet;

/**
 * The fleet's log on Kafka as the intake and the admin API's hook reads see it
 * ({@code store.kind: kafka}, docs/fleet-log.md): the {@link HookLog} whose commit is a
 * produce to {@code <topic_prefix>.hooks}.
 *
 * <h2>Commit</h2>
 * {@link #commit} gives each hook a UUIDv7 id (one monotonic generator per node), hands its
 * record ({@link HookRecords}) to the node's ONE idempotent producer ({@link LogClients}:
 * {@code acks=all}, at most 5 requests in flight, {@code linger.ms}), then waits for the
 * acknowledgements. A hook is ACCEPTED only once the log acknowledged its record; one not
 * acknowledged within {@code timeout_ms} of the batch's start, or refused, is
 * STORE_UNAVAILABLE (HTTP {@code 503 store_unavailable}), and its record may still reach the
 * log later (a sender's retry then makes a second copy: at least once). The intake's writer
 * threads call it concurrently; their records share the producer's batches, so concurrent
 * hooks share produce requests (the group commit of this kind).
 *
 * <p>Dedupe keys are the fleet's claim in Redis ({@code dedupe.scope: fleet} is required
 * with this kind): the log keeps no index of them. A second copy of a key within one batch
 * is still answered DUPLICATE of the first.
 *
 * <h2>Health</h2>
 * {@link LogWatch} makes the hooks topic when missing and probes it every second. While it
 * is unavailable ({@link #problem()}), a commit is answered STORE_UNAVAILABLE at once, and the
 * node's {@code /readyz} answers {@code 503 log_unavailable}; both recover by themselves. The
 * node starts with the brokers unreachable.
 *
 * <h2>Reads</h2>
 * {@link #get} finds a hook by id on the whole log, whichever node accepted it
 * ({@link HookFinder}, bounded), and lists the fleet's hooks by id, which orders them by time
 * ({@link HookPages}: oldest first once settled, or newest first). Nothing here delivers: the log holds no delivery
 * rows, and {@link #setCommitClaims} has no one to hand them to.
 *
 * <p>Thread-safe.
 */
public final class KafkaHookLog implements HookLog, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaHookLog.class);

    private final KafkaLogSettings settings;
    private final LogClients clients;
    private final LogWatch watch;
    private final HookFinder finder;
    private final HookPages pages;
    private final LongSupplier wallMillis;
    private final ProduceListener listener;
    private final UuidV7 ids = new UuidV7();
    private final AtomicBoolean closed = new AtomicBoolean();

    private KafkaHookLog(KafkaLogSettings settings, LongSupplier wallMillis, ProduceListener listener) {
        this.settings = settings;
        this.wallMillis = wallMillis;
        this.listener = listener;
        this.clients = new LogClients(settings);
        this.watch = new LogWatch(settings, clients);
        LogAccess access = new LogAccess(settings, clients, wallMillis);
        this.finder = new HookFinder(access);
        this.pages = new HookPages(access);
    }

    /**
     * Opens the log: checks it once (making the hooks topic if missing; the caller waits a
     * bounded time), then keeps watching it. Never fails on unreachable brokers: the log is
     * then unavailable ({@link #problem()}) until they answer.
     */
    public static KafkaHookLog open(KafkaLogSettings settings, LongSupplier wallMillis, ProduceListener listener) {
        return open(settings, wallMillis, listener, true);
    }

    /** TEST SEAM: as {@link #open}, with the watch's periodic checks off when {@code watching} is false ({@link #checkNow}). */
    static KafkaHookLog open(KafkaLogSettings settings, LongSupplier wallMillis, ProduceListener listener,
                             boolean watching) {
        if (settings.replicationFactor() < 3) {
            LOG.warn("store.kafka.replication_factor is {}: a hook answered 202 rests on {} broker{} (3 or more is"
                    + " what the fleet log is designed for)", settings.replicationFactor(), settings.replicationFactor(),
                    settings.replicationFactor() == 1 ? "" : "s");
        }
        KafkaHookLog log = new KafkaHookLog(settings, wallMillis, listener);
        try {
            log.watch.start(watching);
        } catch (RuntimeException e) { // a topic name Kafka refuses
            log.close();
            throw e;
        }
        return log;
    }

    /** Checks the log now, on the caller's thread (bounded by a few {@code timeout_ms}). */
    void checkNow() {
        watch.check(false);
    }

    /**
     * Replays on this log ({@code POST /v1/destinations/{name}/replay}): a reader of the
     * hooks topic that copies the range's hooks into {@code workingSet}, the node's
     * ({@link LogReplay}); a replay of dead deliveries only redelivers the fleet's dead letters
     * of the range through {@code deadLetters}.
     */
    public ReplaySource replaySource(WorkingSet workingSet, KafkaFleetDeliveries deadLetters) {
        return new LogReplay(settings, clients, workingSet, deadLetters);
    }

    /** Null while the log can take hooks, else why not ({@code /readyz}: {@code 503 log_unavailable}). */
    public String problem() {
        return closed.get() ? "the log is closed" : watch.problem();
    }

    /** Where the log is, for messages. */
    public String location() {
        return settings.location();
    }

    KafkaLogSettings settings() {
        return settings;
    }

    /** The node's clients: the fleet-wide admin side ({@link KafkaFleetDeliveries}) shares its producer. */
    LogClients clients() {
        return clients;
    }

    HookFinder finder() {
        return finder;
    }

    // ================================================================ commit

    @Override
    public List<CommitResult> commit(List<PendingHook> batch) {
        String problem = problem();
        if (problem != null) {
            throw new HookStoreException("the log (" + settings.location() + ") is unavailable: " + problem);
        }
        Producer<byte[], byte[]> producer = clients.producer();
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs());
        long now = wallMillis.getAsLong();
        int n = batch.size();
        String[] idOf = new String[n];
        int[] copyOf = new int[n]; // the index of the first copy in this batch, or -1
        List<Future<RecordMetadata>> sent = new ArrayList<>(java.util.Collections.nCopies(n, null));
        Map<String, Integer> firstByKey = new HashMap<>();
        String failure = null;
        for (int i = 0; i < n; i++) {
            PendingHook hook = batch.get(i);
            copyOf[i] = -1;
            if (hook.dedupeKey() != null) {
                Integer first = firstByKey.putIfAbsent(hook.tenant() + '\0' + hook.source() + '\0' + hook.dedupeKey(), i);
                if (first != null) {
                    copyOf[i] = first;
                    continue;
                }
            }
            if (failure != null) {
                continue;
            }
            UUID id = ids.next(now);
            idOf[i] = id.toString();
            long handed = System.nanoTime();
            try {
                sent.set(i, producer.send(HookRecords.record(settings.hooksTopic(), id, hook), (meta, error) -> {
                    if (error == null) {
                        listener.acknowledged(System.nanoTime() - handed);
                    } else {
                        listener.failed();
                    }
                }));
            } catch (KafkaException e) { // metadata not available within max.block.ms, a closed producer
                listener.failed();
                failure = LogWatch.describe(e);
            }
        }
        CommitResult[] results = new CommitResult[n];
        for (int i = 0; i < n; i++) {
            if (copyOf[i] >= 0) {
                continue;
            }
            Future<RecordMetadata> f = sent.get(i);
            if (f == null) {
                results[i] = CommitResult.STORE_UNAVAILABLE;
                continue;
            }
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                results[i] = CommitResult.accepted(idOf[i]);
            } catch (ExecutionException e) {
                results[i] = CommitResult.STORE_UNAVAILABLE;
                failure = failure == null ? LogWatch.describe(e.getCause() == null ? e : e.getCause()) : failure;
            } catch (TimeoutException e) {
                results[i] = CommitResult.STORE_UNAVAILABLE;
                failure = failure == null ? "no acknowledgement within store.kafka.timeout_ms (" + settings.timeoutMs()
                        + " ms)" : failure;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                results[i] = CommitResult.STORE_UNAVAILABLE;
                failure = failure == null ? "interrupted" : failure;
            }
        }
        for (int i = 0; i < n; i++) {
            if (copyOf[i] >= 0) {
                CommitResult first = results[copyOf[i]];
                results[i] = first.status() == CommitResult.Status.ACCEPTED ? CommitResult.duplicate(first.id())
                        : CommitResult.STORE_UNAVAILABLE;
            }
        }
        if (failure != null) {
            watch.failed(failure);
        }
        return List.of(results);
    }

    /** No dispatcher reads this kind's commits yet: nothing is handed over. */
    @Override
    public void setCommitClaims(CommitClaims claims) {
    }

    // ================================================================ dedupe: the fleet's claim, not the log

    /** The log keeps no dedupe window of its own (the fleet's claim does): 0. */
    @Override
    public long dedupeTtlMillis() {
        return 0;
    }

    @Override
    public Optional<String> findDuplicate(String tenant, String source, String key, long nowMillis) {
        return Optional.empty();
    }

    @Override
    public DuplicateLookup findDuplicateInMemory(String tenant, String source, String key, long nowMillis) {
        return DuplicateLookup.NONE;
    }

    @Override
    public int sweepDedupe(int maxEntries, long nowMillis) {
        return 0;
    }

    // ================================================================ reading

    /**
     * The hook with this id, whichever node accepted it, or empty (also for a string that is
     * not a UUIDv7, and for a hook older than {@code retention.hooks_seconds}). A bounded scan
     * of the log ({@link HookFinder}: at most {@code timeout_ms} of reading, at most
     * {@value HookFinder#MAX_RECORDS} records a partition).
     *
     * @throws HookStoreException when the log cannot be read
     */
    @Override
    public Optional<StoredHook> get(String id) {
        requireOpen();
        return finder.find(id).map(HookRecords.LoggedHook::hook);
    }

    /** The same as {@link #get}: the log keeps no hooks in memory for delivery. */
    @Override
    public Optional<StoredHook> getForDelivery(String id, long seq) {
        return get(id);
    }

    @Override
    public StoredHook[] getForDelivery(List<String> ids, long[] seqs) {
        StoredHook[] out = new StoredHook[ids.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = get(ids.get(i)).orElse(null);
        }
        return out;
    }

    @Override
    public long deliveryReads(boolean fromMemory) {
        return 0;
    }

    /**
     * The fleet's hooks after {@code afterId} in id order, that is by (time, id), each once:
     * only those settled, older than {@code SKEW_MS + timeout_ms} ({@link HookPages}).
     *
     * @throws HookStoreException when the log cannot be read, or not within the page's bounds
     */
    @Override
    public HookPage after(String afterId, int limit, long maxBytes) {
        requireOpen();
        return pages.after(afterId, limit, maxBytes);
    }

    /** The fleet's hooks before {@code afterId} (from now when null), newest first, without bodies ({@link HookPages}). */
    @Override
    public HookSummary.Page newest(String afterId, int limit) {
        requireOpen();
        return pages.newest(afterId, limit);
    }

    private void requireOpen() {
        if (closed.get()) {
            throw new HookStoreException("the log (" + settings.location() + ") is closed");
        }
    }

    /** Stops the watch and closes the clients (the producer waits at most {@code timeout_ms} for records out). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        watch.close();
        clients.close(Duration.ofMillis(settings.timeoutMs()));
    }
}
