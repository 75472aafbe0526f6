package org.sluice.edge.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.verify.HeaderLookup;
import org.sluice.edge.verify.VerifyOutcome;
import org.sluice.fleet.FleetAnswer;
import org.sluice.edge.admission.FleetGate;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.admission.Lease;
import org.sluice.edge.admission.Refusal;
import org.sluice.edge.admission.ShareResult;
import org.sluice.edge.admission.TenantGate;

/**
 * Steps 5 to 9 of the contract, for one hook whose body has been read: verification, the
 * duplicate check, the tenant's quota, its queue share, then the commit. Runs on a worker
 * thread for a body over 64 KiB (verifying a big body takes long). A smaller hook runs on
 * its connection's event loop instead ({@link HookHandler}), where a hand-off would cost
 * more than the work: there its duplicate lookup is answered from memory (the memtables,
 * the block cache, the bloom filters), and one that needs the disk is handed to a worker,
 * which finishes the stage. The intake's writer thread only completes
 * the commit's future: what follows (the lease given back, the fleet claim settled, the
 * RateLimit values, the response) runs back where the stage ran (the worker pool or that
 * event loop), so the writer goes on to its next batch at once.
 *
 * <p>The order is what makes the tenant's budget honest: a forged hook is refused before
 * any tenant charge, and a duplicate is answered before one. A queue-share lease is held
 * from admission until the intake has answered, then given back.
 */
public final class HookStage {

    /** A response and the outcome it is counted as. */
    record Response(FullHttpResponse response, Outcome outcome) {
    }

    private final TenantGate tenants;
    private final HookSink sink;
    private final boolean shadow;
    private final IngestMetrics metrics;
    private final LongSupplier epochMillis;
    /** The fleet gate ({@code scope: fleet}), or null. */
    private final FleetGate fleet;
    /** Where the stage continues after the fleet's answer and after the commit (the worker pool). */
    private final Executor continuation;

    public HookStage(TenantGate tenants, HookSink sink, boolean shadow, IngestMetrics metrics, LongSupplier epochMillis,
              FleetGate fleet, Executor continuation) {
        this.fleet = fleet;
        this.continuation = guarded(continuation);
        this.tenants = tenants;
        this.sink = sink;
        this.shadow = shadow;
        this.metrics = metrics;
        this.epochMillis = epochMillis;
    }

    /** An executor shut down while the intake flushes: the task runs on the caller, so no hook is left unanswered. */
    private static Executor guarded(Executor executor) {
        return task -> {
            try {
                executor.execute(task);
            } catch (RejectedExecutionException e) {
                task.run();
            }
        };
    }

    /** The stage on a worker, continuing after the fleet's answer and after the commit on the worker pool. */
    CompletableFuture<Response> process(ReceivedHook hook) {
        return run(hook, continuation, false);
    }

    /**
     * The stage on a thread that must not wait (the connection's event loop, {@link
     * HookHandler}), continuing after the fleet's answer and after the commit on {@code
     * after}, that event loop, so that no step of it waits for a worker. The duplicate
     * lookup is answered from memory ({@link HookSink#findDuplicateInMemory}); when it needs
     * the disk, a worker reads it and the rest of the stage runs on the worker pool.
     */
    CompletableFuture<Response> process(ReceivedHook hook, Executor after) {
        return run(hook, guarded(after), true);
    }

    private CompletableFuture<Response> run(ReceivedHook hook, Executor after, boolean mustNotWait) {
        Exchange exchange = hook.exchange();
        SourceRoute source = exchange.source;
        String tenant = exchange.tenant;
        byte[] body = hook.body();
        HttpHeaders headers = exchange.request.headers();
        HeaderLookup lookup = name -> joined(headers.getAll(name));
        long nowMillis = epochMillis.getAsLong();

        // 5. verification: a forged hook spends nothing of the tenant's
        VerifyOutcome verified = source.verifier().verify(lookup, body, nowMillis / 1000L);
        if (verified != VerifyOutcome.OK) {
            return done(Responses.verificationFailed(verified.reason()), Outcome.VERIFICATION_FAILED);
        }
        // 6. duplicate: answered with the first id, spends nothing either
        String key = source.dedupe().extract(lookup, body);
        String original = null;
        if (key != null && mustNotWait) {
            DuplicateLookup found = sink.findDuplicateInMemory(tenant, source.id(), key);
            if (!found.known()) { // on the disk: a worker reads it, and the stage goes on there
                return CompletableFuture.supplyAsync(() -> afterLookup(exchange, headers, body, key, nowMillis,
                        sink.findDuplicate(tenant, source.id(), key), continuation), continuation).thenCompose(f -> f);
            }
            original = found.original();
        } else if (key != null) {
            original = sink.findDuplicate(tenant, source.id(), key);
        }
        return afterLookup(exchange, headers, body, key, nowMillis, original, after);
    }

    /** Steps 6a to 9, once the duplicate lookup has found {@code original} (null: none). */
    private CompletableFuture<Response> afterLookup(Exchange exchange, HttpHeaders headers, byte[] body, String key,
                                                  long nowMillis, String original, Executor after) {
        SourceRoute source = exchange.source;
        String tenant = exchange.tenant;
        if (original != null) {
            return done(withLimits(Responses.duplicate(original), tenant), Outcome.DUPLICATE);
        }
        // 6a. a store at store.max_bytes takes no new hook (a duplicate was answered above:
        // it adds nothing); refused before any quota, fleet claim or queue share is spent
        if (sink.storeFull()) {
            return done(Responses.storeFull(), Outcome.STORE_FULL);
        }
        // 6b. the fleet store (scope fleet): one call carrying the tenant's charges and the claim
        FleetGate gate = fleet;
        CompletionStage<FleetAnswer> asked = gate == null ? null : gate.admit(tenant, source.id(), key, body.length);
        if (asked == null) {
            return admit(exchange, headers, body, key, nowMillis, null, null, after);
        }
        return asked.toCompletableFuture().thenComposeAsync(
                answer -> afterFleet(gate, answer, exchange, headers, body, key, nowMillis, after), after);
    }

    /** Steps 7 to 9 after the fleet's answer; runs on {@code after}, never on the store client's threads. */
    private CompletableFuture<Response> afterFleet(FleetGate gate, FleetAnswer answer, Exchange exchange,
                                                 HttpHeaders headers, byte[] body, String key, long nowMillis,
                                                 Executor after) {
        String tenant = exchange.tenant;
        if (answer instanceof FleetAnswer.Duplicate dup) {
            return done(withLimits(Responses.duplicate(dup.hookId()), tenant), Outcome.DUPLICATE);
        }
        if (answer instanceof FleetAnswer.Pending pending) {
            return done(Responses.dedupePending(pending.retryAfterMs()), Outcome.DEDUPE_PENDING);
        }
        if (answer instanceof FleetAnswer.RateLimited limited) {
            Refusal refusal = Refusal.of(limited);
            metrics.refused(refusal.scope());
            if (!shadow) {
                return done(withLimits(Responses.refused(refusal), tenant), Outcome.RATE_LIMITED);
            }
            return admit(exchange, headers, body, key, nowMillis, gate, null, after);
        }
        // admitted by the fleet (its quota is charged there), or to be answered node-local
        boolean fallback = answer instanceof FleetAnswer.Fallback;
        return admit(exchange, headers, body, key, nowMillis, gate, new Claim(gate, answer.claimToken(), fallback), after);
    }

    /** What the fleet call left to do: the claim to settle, and whether the quota is charged node-local. */
    private record Claim(FleetGate gate, String token, boolean fallback) {
    }

    /**
     * Steps 7 to 9. {@code claim} is null when the fleet was not asked (or it refused in
     * shadow mode with {@code gate} set: then the quota was already counted there).
     */
    private CompletableFuture<Response> admit(Exchange exchange, HttpHeaders headers, byte[] body, String key,
                                            long nowMillis, FleetGate gate, Claim claim, Executor after) {
        SourceRoute source = exchange.source;
        String tenant = exchange.tenant;
        // 7. the tenant's quota: hooks, then bytes (in the fleet when it answered; a fallback
        // charges this node's share of the limit)
        boolean fleetRates = gate != null && gate.ratesInFleet();
        Refusal quota;
        if (!fleetRates) {
            quota = tenants.charge(tenant, body.length);
        } else if (claim != null && claim.fallback()) {
            quota = gate.fallbackCharge(tenant, body.length);
        } else {
            quota = null;
        }
        if (quota != null) {
            metrics.refused(quota.scope());
            if (!shadow) {
                release(claim, tenant, source, key);
                return done(withLimits(Responses.refused(quota), tenant), Outcome.RATE_LIMITED);
            }
        }
        // 8. the tenant's share of the node's queue
        ShareResult share = tenants.acquire(tenant, body.length);
        if (share instanceof Refusal full) {
            metrics.refused(full.scope());
            if (!shadow) {
                release(claim, tenant, source, key);
                return done(withLimits(Responses.refused(full), tenant), Outcome.TENANT_OVERLOAD);
            }
        }
        Lease held = share instanceof Lease lease ? lease : Lease.NONE;
        // 9. commit (the writer's own dedupe check runs here, after the fleet's)
        PendingHook pending = new PendingHook(tenant, source.id(), key, nowMillis, headerMap(headers), body,
                source.deliverTo());
        CompletableFuture<CommitResult> commit;
        try {
            commit = sink.submit(pending);
        } catch (RuntimeException e) {
            tenants.release(held);
            release(claim, tenant, source, key);
            return done(Responses.storeUnavailable(), Outcome.STORE_UNAVAILABLE);
        }
        return commit.handleAsync((result, failure) -> {
            tenants.release(held);
            if (claim != null) { // only enqueues: never on the 2xx's critical path
                claim.gate().settle(tenant, source.id(), key, claim.token(), failure == null ? result : null);
            }
            if (failure != null || result == null) {
                return new Response(Responses.storeUnavailable(), Outcome.STORE_UNAVAILABLE);
            }
            return switch (result.status()) {
                case ACCEPTED -> new Response(withLimits(Responses.accepted(result.id()), tenant), Outcome.ACCEPTED);
                case DUPLICATE -> new Response(withLimits(Responses.duplicate(result.id()), tenant), Outcome.DUPLICATE);
                case OVERLOAD -> {
                    metrics.refused(RefusalScope.OVERLOAD);
                    yield new Response(Responses.overload(), Outcome.OVERLOAD);
                }
                case STORE_UNAVAILABLE -> new Response(Responses.storeUnavailable(), Outcome.STORE_UNAVAILABLE);
            };
        }, after);
    }

    private static void release(Claim claim, String tenant, SourceRoute source, String key) {
        if (claim != null) {
            claim.gate().release(tenant, source.id(), key, claim.token());
        }
    }

    private FullHttpResponse withLimits(FullHttpResponse response, String tenant) {
        String[] fields = tenants.rateLimitHeaders(tenant);
        if (fields != null) {
            response.headers().set("RateLimit-Policy", fields[0]).set("RateLimit", fields[1]);
        }
        return response;
    }

    private static CompletableFuture<Response> done(FullHttpResponse response, Outcome outcome) {
        return CompletableFuture.completedFuture(new Response(response, outcome));
    }

    private static String joined(List<String> values) {
        if (values.isEmpty()) {
            return null;
        }
        return values.size() == 1 ? values.get(0) : String.join(", ", values);
    }

    /** The request's headers in arrival order, repeated names joined with ", ". */
    private static Map<String, String> headerMap(HttpHeaders headers) {
        String[] fields = new String[2 * headers.size()];
        int n = 0;
        Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); // the decoder's entries, no copies
        while (it.hasNext() && n < fields.length / 2) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            fields[2 * n] = e.getKey().toString();
            fields[2 * n + 1] = e.getValue().toString();
            n++;
        }
        return OrderedHeaders.adopt(fields, n);
    }
}
