package org.sluice.fleet;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timeout;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.sluice.core.Clock;

/**
 * One node's handle on the fleet store: one tenant limit and one dedupe window shared by
 * every node through Redis, and a store outage that never refuses a hook.
 *
 * <h2>Request path</h2>
 * {@link #admit} is decided by one run of {@code admit.lua} ({@code EVALSHA}, {@code EVAL}
 * once on {@code NOSCRIPT}) and its stage <em>always</em> completes, normally, within
 * {@code fleet.timeout_ms} (a 1 ms-tick wheel timer cuts it off; Lettuce's own command
 * timeout, equal to the budget, clears it from the connection): a call that fails or
 * times out becomes {@link
 * FleetAnswer.Fallback}, and so does every call while the breaker is open (then with no
 * store call and no allocation). No lock is taken and no message is sent; the breaker,
 * the counters and the flags are atomics.
 *
 * <p>Group commit (standalone store): the call does not send its own command. It hands
 * an {@link AdmitRequest} to the {@link AdmitBatcher}, which sends the requests waiting
 * at that moment as one script call (at most {@link AdmitBatcher#BATCH_MAX} of them, at
 * most {@link AdmitBatcher#IN_FLIGHT_MAX} calls in flight; no timer, so a lone request
 * goes out at once) and completes each request from its own reply entry. The script
 * decides a batch's requests in order, so the answers are those of one call each. The
 * budget, the breaker permit and the health accounting stay per call; a failed or
 * timed-out batch is a fallback for each of its requests; a full queue ({@link
 * AdmitBatcher#QUEUE_MAX}) is an {@code ERROR} fallback at once. A request the script
 * fails alone (a key of the wrong type: it wrote nothing) is an {@code ERROR} fallback
 * for that request only, without a token, and no failure for the breaker. With a
 * cluster each admission is its own call (its tenant's slot).
 *
 * <p>Keys: tenant and source ids are checked ({@link Keys#checkId}), so no two callers
 * can share a key whatever strings they pass.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>Caller threads: {@link #admit}, {@link #settleCommitted}, {@link
 *       #settleRelease} (a lock-free enqueue), the readers.</li>
 *   <li>Lettuce's I/O threads complete admissions (decode the reply, record the outcome).</li>
 *   <li>The timer thread ({@code sluice-fleet-timer}) completes admissions that hit the budget.</li>
 *   <li>One background thread per client ({@code sluice-fleet-<node>}): drains settle
 *       operations every {@code fleet.settle_interval_ms}, heartbeats every second,
 *       reconnects when the store was down at start. It alone uses the settle
 *       connection.</li>
 * </ul>
 */
public final class FleetClient implements AutoCloseable {

    static final long HEARTBEAT_EVERY_MS = 1_000;
    static final long HEARTBEAT_TTL_MS = 3_000;

    private static final CompletionStage<FleetAnswer> ADMITTED_NOTHING =
            CompletableFuture.completedStage(new FleetAnswer.Admitted(null));
    private static final FleetAnswer BREAKER_OPEN = new FleetAnswer.Fallback(FleetAnswer.Reason.BREAKER_OPEN, null);
    private static final CompletionStage<FleetAnswer> BREAKER_OPEN_STAGE = CompletableFuture.completedStage(BREAKER_OPEN);
    private static final CompletionStage<FleetLease> LEASE_BREAKER_OPEN =
            CompletableFuture.completedStage(new FleetLease.Fallback(FleetAnswer.Reason.BREAKER_OPEN));
    /** One request the store failed alone (a key of the wrong type): node-local, nothing claimed. */
    private static final FleetAnswer REFUSED = new FleetAnswer.Fallback(FleetAnswer.Reason.ERROR, null);
    /** Completes a call that ran out of budget; shared, so it carries no stack trace. */
    private static final TimeoutException BUDGET_EXCEEDED = new TimeoutException("fleet.timeout_ms exceeded") {
        @Override
        public Throwable fillInStackTrace() {
            return this;
        }
    };

    private final FleetSettings settings;
    private final String nodeId;
    private final CircuitBreaker breaker;
    private final Health health;
    private final RedisLink link;
    /** Group commit of admissions (standalone store); null with a cluster: one call per admission. */
    private final AdmitBatcher batcher;
    private final String pendingTtlMs;
    private final SettleQueue settleQueue;
    private final Settler settler;
    private final AtomicInteger liveNodes = new AtomicInteger(1);
    private final ScheduledExecutorService background;

    private FleetClient(FleetSettings settings, String nodeId, Clock clock) {
        this.settings = settings;
        this.nodeId = nodeId;
        this.breaker = new CircuitBreaker(clock, settings.breakerFailureRate(), settings.breakerMinCalls(),
                TimeUnit.MILLISECONDS.toNanos(settings.breakerWindowMs()),
                TimeUnit.MILLISECONDS.toNanos(settings.breakerOpenMs()));
        this.health = new Health(clock);
        this.link = new RedisLink(settings);
        this.batcher = settings.cluster() ? null : new AdmitBatcher(link, settings.pendingTtlMs(), settings.timeoutMs());
        this.pendingTtlMs = Long.toString(settings.pendingTtlMs());
        this.settleQueue = new SettleQueue(settings.settleQueueMax());
        this.settler = new Settler(settleQueue, link, () -> breaker.state() == BreakerState.CLOSED);
        this.background = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-fleet-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts a client: connects (a store that is down is no error: admissions answer
     * node-local until it is up), then drains settles every {@code settle_interval_ms}
     * and heartbeats every second in the background. {@code nodeId} names this node in
     * the live-node set; it must be unique in the fleet.
     */
    public static FleetClient start(FleetSettings settings, String nodeId) {
        return start(settings, nodeId, Clock.system());
    }

    /** Like {@link #start(FleetSettings, String)}, with the clock the breaker and the warning use. */
    public static FleetClient start(FleetSettings settings, String nodeId, Clock clock) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(clock, "clock");
        if (nodeId == null || nodeId.isBlank()) {
            throw new IllegalArgumentException("nodeId must be a non-blank string, got " + nodeId);
        }
        FleetClient client = new FleetClient(settings, nodeId, clock);
        client.link.ensureConnected();
        client.background.scheduleWithFixedDelay(client::drainQuietly,
                settings.settleIntervalMs(), settings.settleIntervalMs(), TimeUnit.MILLISECONDS);
        client.background.scheduleWithFixedDelay(client::heartbeatQuietly,
                0, HEARTBEAT_EVERY_MS, TimeUnit.MILLISECONDS);
        return client;
    }

    // ------------------------------------------------------------------ admission

    /**
     * Charges the tenant's fleet buckets and claims the event key, in one store call.
     *
     * @param tenant      the tenant (its keys share the hash tag {@code {tenant}}): 1 to 128
     *                    characters of {@code A-Z a-z 0-9 . _ -}
     * @param source      the source id (part of the dedupe key), same rule; checked when {@code claimDedupe}
     * @param dedupeKey   the provider event key, any string; required when {@code claimDedupe}
     * @param hookIncUs   hook charge increment in us ({@link FleetGcra#micros}(1, rate))
     * @param hookTolUs   hook tolerance in us ({@link FleetGcra#micros}(burst, rate)); 0 = no hook limit
     * @param byteIncUs   byte charge increment in us ({@link FleetGcra#micros}(bytes, bytes_per_second))
     * @param byteTolUs   byte tolerance in us ({@link FleetGcra#micros}(burst_bytes, bytes_per_second)); 0 = no byte limit
     * @param chargeRate  charge the buckets ({@code rate_limits.scope: fleet})
     * @param claimDedupe check and claim the key ({@code dedupe.scope: fleet})
     * @return a stage that completes normally within {@code fleet.timeout_ms} (plus
     *         scheduling noise), never exceptionally
     * @throws IllegalArgumentException for programming errors: a tenant or source id outside
     *         the rule above (the message names the field and the value), a claim without a
     *         source or key, negative charges
     */
    public CompletionStage<FleetAnswer> admit(String tenant, String source, String dedupeKey,
                                              long hookIncUs, long hookTolUs, long byteIncUs, long byteTolUs,
                                              boolean chargeRate, boolean claimDedupe) {
        if (!chargeRate && !claimDedupe) {
            return ADMITTED_NOTHING;
        }
        Keys.checkId("tenant", tenant);
        if (claimDedupe && (source == null || dedupeKey == null)) {
            throw new IllegalArgumentException("claimDedupe needs a source and a dedupeKey, got source="
                    + source + " dedupeKey=" + dedupeKey);
        }
        if (claimDedupe) {
            Keys.checkId("source", source);
        }
        FleetGcra.checkPair("hook", hookIncUs, hookTolUs);
        FleetGcra.checkPair("byte", byteIncUs, byteTolUs);

        int permit = breaker.acquire();
        if (permit == CircuitBreaker.DENIED) {
            health.fallback(chargeRate, claimDedupe, FleetAnswer.Reason.BREAKER_OPEN, breaker.state().label());
            return BREAKER_OPEN_STAGE;
        }
        String token = claimDedupe ? newToken() : null;
        RedisLink.Channel ch = link.requests();
        if (ch == null) {
            return CompletableFuture.completedStage(
                    finish(permit, chargeRate, claimDedupe, token, null, new IllegalStateException("not connected")));
        }
        AdmitRequest request = new AdmitRequest(Keys.hooks(tenant), Keys.bytes(tenant),
                claimDedupe ? Keys.dedupe(tenant, source, dedupeKey) : null,
                hookIncUs, hookTolUs, byteIncUs, byteTolUs, chargeRate, token);
        health.storeCall();
        Timeout budget = link.timer().newTimeout(t -> request.completeExceptionally(BUDGET_EXCEEDED),
                settings.timeoutMs(), TimeUnit.MILLISECONDS);
        CompletionStage<FleetAnswer> answer = request.handle((r, err) -> {
            budget.cancel();
            return finish(permit, chargeRate, claimDedupe, token, r, err);
        });
        try {
            if (batcher != null) {
                batcher.submit(request);
            } else {
                AdmitBatcher.sendAlone(ch, request, pendingTtlMs);
            }
        } catch (RuntimeException e) { // a client that refuses on the caller's thread: still an answer
            request.completeExceptionally(e);
        }
        return answer;
    }

    private FleetAnswer finish(int permit, boolean rate, boolean dedupe, String token, List<Object> reply, Throwable err) {
        FleetAnswer answer = null;
        if (err == null) {
            AdmitReply parsed = AdmitReply.parse(reply, token);
            if (parsed instanceof AdmitReply.Answer a) {
                answer = a.answer();
            } else if (parsed instanceof AdmitReply.Refused r) {
                // the store answered and failed this request alone (it wrote nothing): the
                // store is healthy, so the breaker and the degraded flags see a success;
                // only this hook is answered node-local, and it has no claim to settle
                breaker.onResult(permit, false);
                health.outcome(rate, dedupe, false);
                health.refused(rate, dedupe, r.detail());
                return REFUSED;
            } else {
                err = new IllegalStateException(((AdmitReply.Malformed) parsed).what());
            }
        }
        boolean failed = err != null;
        breaker.onResult(permit, failed);
        health.outcome(rate, dedupe, failed);
        if (!failed) {
            return answer;
        }
        FleetAnswer.Reason reason = isTimeout(err) ? FleetAnswer.Reason.TIMEOUT : FleetAnswer.Reason.ERROR;
        health.fallback(rate, dedupe, reason, breaker.state().label());
        return new FleetAnswer.Fallback(reason, token);
    }

    private static boolean isTimeout(Throwable err) {
        Throwable e = err;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e instanceof TimeoutException || e instanceof RedisCommandTimeoutException;
    }

    private static String newToken() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return Long.toHexString(r.nextLong() | Long.MIN_VALUE) + Long.toHexString(r.nextLong() | Long.MIN_VALUE);
    }

    /** {@code EVALSHA}; on {@code NOSCRIPT}, {@code EVAL} with the body (which also caches it). */
    static <T> CompletableFuture<T> evalScript(RedisLink.Channel ch, Script script, ScriptOutputType type,
                                               String[] keys, String... args) {
        return script.eval(ch, type, keys, args);
    }

    // ------------------------------------------------------------------ pacing

    /**
     * Leases up to {@code wanted} permits of {@code destination}'s fleet pacing bucket in one
     * run of {@code pace.lua}: the permits granted are charged now, so every node that
     * leases from the bucket shares one rate. Like {@link #admit}, the stage always completes
     * normally within {@code fleet.timeout_ms}: a call that fails or times out, and every
     * call while the breaker is open, is a {@link FleetLease.Fallback}. The breaker is the
     * one admission uses (one store, one judgement of its health); a lease is not counted
     * in the admission figures of {@link #stats()}.
     *
     * @param destination the bucket's name: 1 to 128 characters of {@code A-Z a-z 0-9 . _ -}
     * @param incUs       one permit in us ({@link FleetGcra#micros}(1, rate))
     * @param tolUs       the burst in us ({@link FleetGcra#micros}(burst, rate)), at least 1
     * @param wanted      permits asked for, at least 1
     * @throws IllegalArgumentException for programming errors (the message names the argument)
     */
    public CompletionStage<FleetLease> lease(String destination, long incUs, long tolUs, int wanted) {
        String key = Keys.pace(destination);
        FleetGcra.checkPair("pace", incUs, tolUs);
        if (incUs < 1 || tolUs < 1) {
            throw new IllegalArgumentException("paceIncUs and paceTolUs must be at least 1, got " + incUs + " and " + tolUs);
        }
        if (wanted < 1) {
            throw new IllegalArgumentException("wanted must be at least 1, got " + wanted);
        }
        int permit = breaker.acquire();
        if (permit == CircuitBreaker.DENIED) {
            return LEASE_BREAKER_OPEN;
        }
        RedisLink.Channel ch = link.requests();
        if (ch == null) {
            breaker.onResult(permit, true);
            return CompletableFuture.completedStage(new FleetLease.Fallback(FleetAnswer.Reason.ERROR));
        }
        CompletableFuture<List<Object>> reply;
        try {
            reply = evalScript(ch, Script.PACE, ScriptOutputType.MULTI, new String[] {key},
                    Long.toString(incUs), Long.toString(tolUs), Integer.toString(wanted), "");
        } catch (RuntimeException e) { // a client that refuses on the caller's thread: still an answer
            reply = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<List<Object>> budgeted = new CompletableFuture<>();
        Timeout budget = link.timer().newTimeout(t -> budgeted.completeExceptionally(BUDGET_EXCEEDED),
                settings.timeoutMs(), TimeUnit.MILLISECONDS);
        reply.whenComplete((r, err) -> {
            if (err == null) {
                budgeted.complete(r);
            } else {
                budgeted.completeExceptionally(err);
            }
        });
        return budgeted.handle((r, err) -> {
            budget.cancel();
            FleetLease.Granted granted = err == null ? parseLease(r, wanted) : null;
            breaker.onResult(permit, granted == null);
            if (granted != null) {
                return granted;
            }
            return new FleetLease.Fallback(err != null && isTimeout(err) ? FleetAnswer.Reason.TIMEOUT
                    : FleetAnswer.Reason.ERROR);
        });
    }

    /** {@code {granted, wait}} with 0 <= granted <= wanted and wait >= 0, else null (a reply not from pace.lua). */
    static FleetLease.Granted parseLease(List<Object> reply, int wanted) {
        if (reply == null || reply.size() != 2 || !(reply.get(0) instanceof Long granted)
                || !(reply.get(1) instanceof Long wait) || granted < 0 || granted > wanted || wait < 0) {
            return null;
        }
        return new FleetLease.Granted((int) (long) granted, wait);
    }

    // ------------------------------------------------------------------ settling

    /**
     * Queues the promotion of a claim to committed under {@code hookId} for {@code
     * ttlSeconds} (the dedupe window): the hook is durable. Never blocks, never calls the
     * store on this thread. A null {@code claimToken} (nothing claimed) is a no-op.
     *
     * @return false when the queue was full and the operation was dropped (counted)
     * @throws IllegalArgumentException a tenant or source id {@link #admit} would refuse
     */
    public boolean settleCommitted(String tenant, String source, String dedupeKey, String claimToken,
                                   String hookId, long ttlSeconds) {
        if (claimToken == null) {
            return true;
        }
        Objects.requireNonNull(hookId, "hookId");
        if (ttlSeconds < 1) {
            throw new IllegalArgumentException("dedupe.ttl_seconds must be at least 1, got " + ttlSeconds);
        }
        return settleQueue.offer(new SettleQueue.Op(Keys.dedupe(tenant, source, dedupeKey), claimToken, hookId, ttlSeconds));
    }

    /**
     * Queues the release of a claim (nothing was stored for its key): the key is deleted
     * only if it still holds {@code claimToken}. A null token is a no-op.
     *
     * @return false when the queue was full and the operation was dropped (counted)
     * @throws IllegalArgumentException a tenant or source id {@link #admit} would refuse
     */
    public boolean settleRelease(String tenant, String source, String dedupeKey, String claimToken) {
        if (claimToken == null) {
            return true;
        }
        return settleQueue.offer(new SettleQueue.Op(Keys.dedupe(tenant, source, dedupeKey), claimToken, null, 0));
    }

    /** True when the admission connection is up (tests wait on it after restarting the store). */
    boolean storeConnected() {
        RedisLink.Channel ch = link.requests();
        return ch != null && ch.connection().isOpen();
    }

    /** The admission batcher, or null with a cluster (tests). */
    AdmitBatcher batcher() {
        return batcher;
    }

    /** Drains the settle queue on the caller's thread (tests; the background thread does this normally). */
    void drainSettlesNow() {
        settler.drain();
    }

    private void drainQuietly() {
        try {
            settler.drain();
        } catch (RuntimeException e) {
            // counted by the settler where it can be; the next tick tries again
        }
    }

    // ------------------------------------------------------------------ heartbeats and resets

    /**
     * Sends this node's heartbeat now and updates {@link #liveNodes()} from the reply.
     * The background thread does this every second; skipped (completes with the last
     * known count) while the breaker is not closed.
     */
    public CompletionStage<Integer> heartbeat() {
        RedisLink.Channel ch = link.requests();
        if (ch == null || breaker.state() != BreakerState.CLOSED) {
            return CompletableFuture.completedStage(liveNodes.get());
        }
        CompletableFuture<Long> reply = evalScript(ch, Script.HEARTBEAT, ScriptOutputType.INTEGER,
                new String[] {Keys.NODES}, nodeId, Long.toString(HEARTBEAT_TTL_MS));
        return reply.orTimeout(Math.max(settings.timeoutMs(), 1_000), TimeUnit.MILLISECONDS)
                .handle((n, err) -> {
                    if (err == null && n != null && n > 0) {
                        liveNodes.set((int) Math.min(Integer.MAX_VALUE, n));
                    }
                    return liveNodes.get();
                });
    }

    private void heartbeatQuietly() {
        try {
            if (link.requests() == null && !link.ensureConnected()) {
                return;
            }
            heartbeat().toCompletableFuture().get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            // a missed heartbeat keeps the last known count
        }
    }

    /**
     * Forgets the tenant's fleet buckets (its limit changed). Best effort: completes with
     * false when the store is not reachable or the breaker is open.
     */
    public CompletionStage<Boolean> resetTenant(String tenant) {
        Keys.checkId("tenant", tenant);
        RedisLink.Channel ch = link.requests();
        if (ch == null || breaker.state() != BreakerState.CLOSED) {
            return CompletableFuture.completedStage(false);
        }
        return ch.keys().del(Keys.hooks(tenant), Keys.bytes(tenant)).toCompletableFuture()
                .orTimeout(settings.timeoutMs(), TimeUnit.MILLISECONDS)
                .handle((n, err) -> err == null);
    }

    // ------------------------------------------------------------------ readings

    /** The breaker's state. */
    public BreakerState state() {
        return breaker.state();
    }

    /** {@code sluice_fleet_limiter_degraded{kind}}: answered node-local now (breaker not closed, or its last call failed). */
    public boolean degraded(FleetKind kind) {
        return breaker.state() != BreakerState.CLOSED || health.lastCallFailed(kind);
    }

    /** {@code sluice_fleet_fallback_total{kind}}. */
    public long fallbackTotal(FleetKind kind) {
        return health.fallbacks(kind);
    }

    /** The last known number of live nodes (at least 1). */
    public int liveNodes() {
        return liveNodes.get();
    }

    /**
     * The share of a tenant's limit this node's fallback should charge against while
     * degraded: {@code 1 / liveNodes()} with {@code fleet.fallback: share}, {@code 1.0}
     * with {@code whole}. The edge's node-local buckets use {@code rate x share} and
     * {@code burst x share} (at least one hook).
     */
    public double fallbackShare() {
        return settings.fallback() == FleetSettings.Fallback.WHOLE ? 1.0 : 1.0 / Math.max(1, liveNodes.get());
    }

    public int settleQueueDepth() {
        return settleQueue.depth();
    }

    public FleetSettings settings() {
        return settings;
    }

    /** Everything {@code GET /v1/admission} shows. */
    public FleetStats stats() {
        return new FleetStats(
                breaker.state(),
                degraded(FleetKind.RATE_LIMIT),
                degraded(FleetKind.DEDUPE),
                liveNodes.get(),
                health.fallbacks(FleetKind.RATE_LIMIT),
                health.fallbacks(FleetKind.DEDUPE),
                health.fallbacks(FleetAnswer.Reason.BREAKER_OPEN),
                health.fallbacks(FleetAnswer.Reason.TIMEOUT),
                health.fallbacks(FleetAnswer.Reason.ERROR),
                health.storeCalls(),
                settleQueue.accepted(),
                settler.promoted(),
                settler.released(),
                settler.skipped(),
                settleQueue.dropped(),
                settler.failed(),
                settleQueue.depth());
    }

    /** Stops the background thread, drains what the store takes, leaves the live-node set, disconnects. */
    @Override
    public void close() {
        background.shutdownNow();
        try {
            background.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            drainQuietly();
            RedisLink.Channel ch = link.requests();
            if (ch != null && breaker.state() == BreakerState.CLOSED) {
                FleetClient.<Long>evalScript(ch, Script.HEARTBEAT, ScriptOutputType.INTEGER,
                        new String[] {Keys.NODES}, nodeId, "0").get(1, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            // leaving is best effort: the entry expires on its own
        } finally {
            link.close();
        }
    }
}
