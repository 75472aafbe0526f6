package org.sluice.edge.store.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Limit;
import org.sluice.core.LimitSource;
import org.sluice.core.OverrideStoreException;
import org.sluice.core.TenantLimits;
import org.sluice.edge.store.Actors;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.kafka.ControlRecords.Kind;

/**
 * The fleet's {@link ControlState} on the compacted control topic {@code <prefix>.control}
 * (records: {@link ControlRecords}; docs/fleet-log.md, "Control state"): a pause or an
 * override made on any node applies on every node, and survives restarts of them all.
 *
 * <h2>Writes</h2>
 * Each change is one record, produced with {@code acks=all} by an idempotent producer and
 * answered only once acknowledged; an override change is followed by its audit record, sent
 * once the change is acknowledged, so a failure between the two leaves a change without its
 * record, never a record without its change. A write not acknowledged within
 * {@code timeout_ms} throws ({@link OverrideStoreException} for overrides,
 * {@link HookStoreException} for the rest): the admin API's {@code 503 store_unavailable}.
 * The audit record is written once, by the node where the change was made, and read by
 * every node: each lists it once.
 *
 * <h2>Reads</h2>
 * A {@link ControlFollower} reads the topic from its start when the node opens and follows
 * it into a {@link ControlView}, which answers every read from memory. {@link #open} waits
 * for the boot's catch-up up to {@link KafkaControlSettings#catchUpMs()}; past it the node
 * starts anyway, and until the follower has caught up the paused set and the audit cannot
 * be read ({@link HookStoreException}: the dispatcher's pass is refused and tried again, the
 * admin API answers 503), {@link #mayBePaused} says yes to every destination, and overrides
 * reach the tenant limits as they are read. A node's own writes enter its view as soon as
 * they are acknowledged.
 *
 * <h2>Who is told</h2>
 * Pause and disable changes, from any node, call the {@link #onPausedChanged} listeners (the dispatcher's
 * wake-up); signing key changes call the {@link #onSigningChanged} listeners (which put a
 * rotation made on another node in force here). Overrides live in memory in {@link TenantLimits}, which reads its store once:
 * {@link #followOverrides} makes the follower apply every override record to it, through
 * {@link TenantLimits#putOverride}/{@link TenantLimits#deleteOverride} inside an "applying"
 * scope in which this store's {@link #put}/{@link #delete} write nothing and only check that
 * the record applied is still its key's newest in the view (else they refuse, and
 * {@code TenantLimits} changes nothing: the newer record is applied by its own turn). So
 * every node's limits follow the topic's order, whatever the interleaving of its own admin
 * writes with the follower: both go through the limits' one write lock, and the follower's
 * is applied last when it is the newest. The node that made a change applies it twice (once
 * from its admin call, once from the follower), which resets the tenant's buckets twice.
 *
 * <p>Thread-safe.
 */
public final class KafkaControlState implements ControlState, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaControlState.class);
    /** Set while the follower applies an override record to the tenant limits. */
    private static final ThreadLocal<Applying> APPLYING = new ThreadLocal<>();

    /** The override record being applied: its key and offset. */
    private record Applying(String key, long offset) {
    }

    private final KafkaControlSettings settings;
    private final long instanceMaxBodyBytes;
    private final LongSupplier wallClockMillis;
    /** This instance's part of its audit keys. */
    private final String writer = UUID.randomUUID().toString();
    private final AtomicLong auditCounter = new AtomicLong();
    private final ControlView view = new ControlView();
    private final KafkaProducer<byte[], byte[]> producer;
    private final ControlFollower follower;
    private final List<Consumer<String>> pauseListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> signingListeners = new CopyOnWriteArrayList<>();
    /** Serialises applying override records to the limits with {@link #followOverrides}. */
    private final Object pushLock = new Object();
    @GuardedBy("pushLock")
    private TenantLimits limits;
    private volatile boolean closed;

    private KafkaControlState(KafkaControlSettings settings, long instanceMaxBodyBytes, LongSupplier wallClockMillis,
                              boolean topicReady) {
        this.settings = settings;
        this.instanceMaxBodyBytes = instanceMaxBodyBytes;
        this.wallClockMillis = wallClockMillis;
        String clientId = settings.topicPrefix() + "-control-" + writer.substring(0, 8);
        this.producer = new KafkaProducer<>(producerProperties(settings, clientId));
        try {
            this.follower = new ControlFollower(settings, clientId, topicReady, this::take);
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * Makes sure of the control topic (created when missing), starts following it, and waits
     * until it has been read to its end, at most {@link KafkaControlSettings#catchUpMs()}.
     * Brokers that do not answer in that time: the node opens all the same, not caught up
     * (see the class comment), and the follower goes on trying.
     *
     * @param instanceMaxBodyBytes {@code http.max_body_bytes}, which {@link Limit#parse} needs to validate stored limits
     * @param wallClockMillis      the time written in audit records and pause records
     * @throws IllegalStateException when the topic exists in a shape it cannot use (several
     *                               partitions, not compacted); the message names it
     */
    public static KafkaControlState open(KafkaControlSettings settings, long instanceMaxBodyBytes,
                                         LongSupplier wallClockMillis) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(wallClockMillis, "wallClockMillis");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.catchUpMs());
        boolean topicReady = false;
        try (Admin admin = ControlTopic.admin(settings, settings.catchUpMs())) {
            ControlTopic.ensure(admin, settings, deadline);
            topicReady = true;
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            LOG.warn("cannot make sure of the control topic {} at boot; the node starts and keeps trying: {}",
                    settings.topic(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HookStoreException("interrupted while opening the control topic " + settings.topic(), e);
        }
        KafkaControlState state = new KafkaControlState(settings, instanceMaxBodyBytes, wallClockMillis, topicReady);
        state.follower.start();
        try {
            if (!state.follower.awaitCaughtUp(ControlTopic.left(deadline))) {
                LOG.warn("the control topic {} was not read to its end within {} ms: until it is, the paused destinations"
                        + " and the audit are unknown here (deliveries wait, the admin API answers 503) and overrides"
                        + " apply as they are read", settings.topic(), settings.catchUpMs());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            state.close();
            throw new HookStoreException("interrupted while reading the control topic " + settings.topic(), e);
        }
        return state;
    }

    private static Properties producerProperties(KafkaControlSettings settings, String clientId) {
        Properties p = new Properties();
        p.putAll(settings.properties());
        int timeout = (int) Math.min(Integer.MAX_VALUE, settings.timeoutMs());
        ClientKeys.producer(p, settings.bootstrapServers());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeout);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeout);
        p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        return p;
    }

    /** Whether the follower has read the topic to the end it had when the node opened (readiness). */
    public boolean caughtUp() {
        return follower.caughtUp();
    }

    /** Calls {@code listener} with a destination's name each time its paused flag changes here, whichever node changed it. */
    public void onPausedChanged(Consumer<String> listener) {
        pauseListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Calls {@code listener} with a destination's name each time its signing keys change here, whichever node changed them. */
    public void onSigningChanged(Consumer<String> listener) {
        signingListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * From now on applies every override record read to {@code limits} (built on this
     * store), after bringing them to the view's overrides as they are now.
     */
    public void followOverrides(TenantLimits limits) {
        Objects.requireNonNull(limits, "limits");
        synchronized (pushLock) {
            this.limits = limits;
            Map<String, ControlView.Entry> now = view.overrideEntries();
            now.forEach((tenant, entry) -> push(tenant, entry.value(), entry.offset()));
            for (TenantLimits.Entry e : limits.list().tenants()) {
                if (e.source() == LimitSource.OVERRIDE && !now.containsKey(e.tenant())) {
                    push(e.tenant(), null, view.offsetOf(Kind.OVERRIDE.key(e.tenant())));
                }
            }
        }
    }

    @Override
    public ActorScope actingAs(String actor) {
        return Actors.actingAs(actor);
    }

    // ---------------------------------------------------------------- following

    /** The follower's sink: one record, in offset order. */
    private void take(String key, long offset, byte[] value) {
        if (announced(view.apply(key, offset, value))) {
            return;
        }
        if (Kind.of(key) == Kind.OVERRIDE && view.offsetOf(key) == offset) {
            // the newest record of its key, even one this node wrote and took at its acknowledgement
            synchronized (pushLock) {
                push(Kind.OVERRIDE.nameIn(key), value, offset);
            }
        }
    }

    /**
     * Tells the listeners of a change to a destination (a pause, a disable, its signing keys);
     * false when {@code change} is of another kind, or none.
     */
    private boolean announced(ControlView.Change change) {
        if (change.kind() == Kind.PAUSE || change.kind() == Kind.DISABLE) {
            pausedChanged(change.name());
            return true;
        }
        if (change.kind() == Kind.SIGNING) {
            tell(signingListeners, change.name(), "signing keys");
            return true;
        }
        return false;
    }

    /**
     * Applies {@code tenant}'s override record at {@code offset} (value null: none) to the
     * limits, if followed; nothing changes there unless it is still its key's newest when the
     * limits' write lock is taken ({@link #checkStillNewest}).
     */
    @GuardedBy("pushLock")
    private void push(String tenant, byte[] value, long offset) {
        if (limits == null || tenant.isEmpty()) {
            return;
        }
        APPLYING.set(new Applying(Kind.OVERRIDE.key(tenant), offset));
        try {
            Limit limit = value == null ? null : parse(tenant, value);
            if (limit == null) {
                limits.deleteOverride(tenant);
            } else {
                limits.putOverride(tenant, limit);
            }
        } catch (OverrideStoreException superseded) {
            // a newer record of this tenant arrived meanwhile: it is applied in its own turn
        } finally {
            APPLYING.remove();
        }
    }

    /** Refuses (so {@link TenantLimits} changes nothing) an apply whose record is no longer its key's newest. */
    private void checkStillNewest(Applying applying, String key) {
        if (!applying.key().equals(key) || view.offsetOf(key) != applying.offset()) {
            throw new OverrideStoreException("the override record of " + key + " at offset " + applying.offset()
                    + " was superseded");
        }
    }

    private void pausedChanged(String destination) {
        tell(pauseListeners, destination, "paused destinations");
    }

    private static void tell(List<Consumer<String>> listeners, String destination, String what) {
        for (Consumer<String> listener : listeners) {
            try {
                listener.accept(destination);
            } catch (RuntimeException e) {
                LOG.warn("a listener of {} failed for {}: {}", what, destination, e.toString());
            }
        }
    }

    // ---------------------------------------------------------------- OverrideStore

    /**
     * The overrides read so far (all of them once caught up). One that does not parse (for
     * example after {@code http.max_body_bytes} was lowered) is skipped with a warning.
     */
    @Override
    public Map<String, Limit> load() {
        Map<String, Limit> out = new LinkedHashMap<>();
        view.overrides().forEach((tenant, json) -> {
            Limit limit = parse(tenant, json);
            if (limit != null) {
                out.put(tenant, limit);
            }
        });
        return Collections.unmodifiableMap(out);
    }

    @Override
    public void put(String tenant, Limit limit) {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(limit, "limit");
        String key = Kind.OVERRIDE.key(tenant);
        Applying applying = APPLYING.get();
        if (applying != null) {
            checkStillNewest(applying, key);
            return;
        }
        Map<String, Object> before = storedMap(view.override(tenant));
        Map<String, Object> after = limit.toMap();
        try {
            send(key, ControlRecords.json(after), "the override of tenant " + tenant);
            audit(AuditRecord.PUT, tenant, before, after);
        } catch (HookStoreException e) {
            throw new OverrideStoreException(e.getMessage(), e);
        }
    }

    @Override
    public boolean delete(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        String key = Kind.OVERRIDE.key(tenant);
        Applying applying = APPLYING.get();
        if (applying != null) {
            checkStillNewest(applying, key);
            return true;
        }
        byte[] existing = view.override(tenant);
        if (existing == null) {
            return false;
        }
        try {
            send(key, null, "the removal of tenant " + tenant + "'s override");
            audit(AuditRecord.DELETE, tenant, storedMap(existing), null);
        } catch (HookStoreException e) {
            throw new OverrideStoreException(e.getMessage(), e);
        }
        return true;
    }

    // ---------------------------------------------------------------- audit

    @Override
    public void record(String action, String tenant, Map<String, Object> before, Map<String, Object> after) {
        Objects.requireNonNull(action, "action");
        audit(action, tenant, before, after);
    }

    @Override
    public List<AuditRecord> audit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        requireCaughtUp("the audit");
        return view.audit(limit);
    }

    private void audit(String action, String tenant, Map<String, Object> before, Map<String, Object> after) {
        long now = wallClockMillis.getAsLong();
        String actor = Actors.current();
        AuditRecord record = new AuditRecord(now, actor, action, tenant, before, after);
        send(ControlRecords.auditKey(now, writer, auditCounter.getAndIncrement()), ControlRecords.audit(record),
                "the audit record of " + action);
    }

    // ---------------------------------------------------------------- pauses

    @Override
    public void setPaused(String destination, boolean paused, long nowMillis) {
        PendingHook.checkDestination(destination);
        send(Kind.PAUSE.key(destination), paused ? ControlRecords.paused(nowMillis) : null,
                (paused ? "pausing " : "resuming ") + destination);
    }

    /**
     * The paused destinations, from memory.
     *
     * @throws HookStoreException until the follower has read the topic to its end
     */
    @Override
    public Set<String> pausedDestinations() {
        requireCaughtUp("the paused destinations");
        return view.paused();
    }

    @Override
    public boolean mayBePaused(String destination) {
        return !follower.caughtUp() || view.paused().contains(destination) || view.disabled().containsKey(destination);
    }

    /**
     * Disables or enables a destination for the whole fleet: one record, as a pause is, and
     * the tombstone of its run's start when one is stored. An enable clears the start first
     * (a failure between the two leaves it disabled with no start, never enabled with an old
     * one); a disable writes itself first, and a tombstone that fails after it is only logged
     * (the disable stands, and the enable clears the start).
     */
    @Override
    public void setDisabled(String destination, DisabledDestination disabled, long nowMillis) {
        PendingHook.checkDestination(destination);
        if (disabled == null) {
            clearFailing(destination, nowMillis);
            send(Kind.DISABLE.key(destination), null, "enabling " + destination);
            return;
        }
        send(Kind.DISABLE.key(destination), ControlRecords.disabled(disabled), "disabling " + destination);
        try {
            clearFailing(destination, nowMillis);
        } catch (HookStoreException e) {
            LOG.warn("{} is disabled, but the start of its run of failures stays stored until it is enabled: {}",
                    destination, e.getMessage());
        }
    }

    private void clearFailing(String destination, long nowMillis) {
        if (view.failing().containsKey(destination)) {
            setFailingSince(destination, NOT_FAILING, nowMillis);
        }
    }

    /**
     * The fleet's starts of runs of failures, from memory: one record per destination, the
     * newest by the topic's order (what every node's dispatcher then makes of it:
     * docs/fleet-log.md, "Control state").
     *
     * @throws HookStoreException until the follower has read the topic to its end
     */
    @Override
    public Map<String, Long> failingSince() {
        requireCaughtUp("the runs of failures");
        return view.failing();
    }

    @Override
    public void setFailingSince(String destination, long sinceMillis, long nowMillis) {
        PendingHook.checkDestination(destination);
        send(Kind.FAILING.key(destination), sinceMillis < 0 ? null : ControlRecords.failing(sinceMillis),
                (sinceMillis < 0 ? "clearing the run of failures of " : "storing the run of failures of ") + destination);
    }

    /**
     * The disabled destinations, from memory.
     *
     * @throws HookStoreException until the follower has read the topic to its end
     */
    @Override
    public Map<String, DisabledDestination> disabledDestinations() {
        requireCaughtUp("the disabled destinations");
        return view.disabled();
    }

    // ---------------------------------------------------------------- signing keys

    /**
     * Every destination's signing keys read so far, from memory: all of them once the follower
     * has read the topic to its end ({@link #signingSecretsComplete}); each one read after is
     * announced to the {@link #onSigningChanged} listeners, so a reader that registers before
     * it reads misses none.
     */
    @Override
    public Map<String, byte[]> signingSecrets() {
        return Collections.unmodifiableMap(view.signing());
    }

    @Override
    public boolean signingSecretsComplete() {
        return follower.caughtUp();
    }

    @Override
    public void putSigningSecrets(String destination, byte[] value) {
        PendingHook.checkDestination(destination);
        Objects.requireNonNull(value, "value");
        send(Kind.SIGNING.key(destination), value, "the signing keys of " + destination);
    }

    private void requireCaughtUp(String what) {
        if (!follower.caughtUp()) {
            throw new HookStoreException(what + " are not known yet: the control topic " + settings.topic()
                    + " has not been read to its end");
        }
    }

    // ---------------------------------------------------------------- writing

    /**
     * Produces one record (value null: a tombstone) and waits for its acknowledgement, then
     * takes it into this node's view.
     */
    private void send(String key, byte[] value, String what) {
        if (closed) {
            throw new HookStoreException(what + " cannot be written: the control state is closed");
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs());
        RecordMetadata written;
        try {
            written = producer.send(new ProducerRecord<>(settings.topic(), 0, ControlRecords.utf8(key), value))
                    .get(ControlTopic.left(deadline), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new HookStoreException(what + " was not acknowledged by the control topic " + settings.topic() + ": "
                    + e.getCause(), e.getCause());
        } catch (TimeoutException | KafkaException e) {
            throw new HookStoreException(what + " was not acknowledged by the control topic " + settings.topic()
                    + " within " + settings.timeoutMs() + " ms: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HookStoreException("interrupted while writing " + what, e);
        }
        announced(view.apply(key, written.offset(), value));
    }

    // ---------------------------------------------------------------- helpers

    /** {@code tenant}'s stored override as a limit, or null (with a warning) when it does not parse. */
    private Limit parse(String tenant, byte[] json) {
        try {
            return Limit.parse(ControlRecords.map(json), instanceMaxBodyBytes);
        } catch (IllegalArgumentException e) { // InvalidLimitException among them
            LOG.warn("skipping the stored rate-limit override of tenant {}: {}", tenant, e.getMessage());
            return null;
        }
    }

    /** The stored JSON as a map, or null; an unreadable value reads as its raw text so the audit still shows it. */
    private static Map<String, Object> storedMap(byte[] json) {
        if (json == null) {
            return null;
        }
        try {
            return ControlRecords.map(json);
        } catch (IllegalArgumentException e) {
            Map<String, Object> raw = new LinkedHashMap<>();
            raw.put("unreadable", ControlView.text(json));
            return raw;
        }
    }

    /** Stops following and closes the clients; writes after this throw. */
    @Override
    public void close() {
        closed = true;
        follower.close();
        producer.close(Duration.ofSeconds(5));
    }
}
