package org.sluice.edge.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.verify.HeaderLookup;
import org.sluice.edge.verify.VerifyOutcome;

/**
 * Steps 5 to 9 of the contract, for one hook whose body has been read: verification, the
 * duplicate check, the tenant's quota, its queue share, then the commit. Runs on a worker
 * thread (never an event loop: verification of a big body and the store's duplicate lookup
 * take time); the commit completes on the intake's writer thread.
 *
 * <p>The order is what makes the tenant's budget honest: a forged hook is refused before
 * any tenant charge, and a duplicate is answered before one. A queue-share lease is held
 * from admission until the intake has answered, then given back.
 */
final class HookStage {

    /** A response and the outcome it is counted as. */
    record Answer(FullHttpResponse response, Outcome outcome) {
    }

    private final TenantGate tenants;
    private final HookSink sink;
    private final boolean shadow;
    private final IngestMetrics metrics;
    private final LongSupplier epochMillis;

    HookStage(TenantGate tenants, HookSink sink, boolean shadow, IngestMetrics metrics, LongSupplier epochMillis) {
        this.tenants = tenants;
        this.sink = sink;
        this.shadow = shadow;
        this.metrics = metrics;
        this.epochMillis = epochMillis;
    }

    CompletableFuture<Answer> process(ReceivedHook hook) {
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
        if (key != null) {
            String original = sink.findDuplicate(tenant, source.id(), key);
            if (original != null) {
                return done(withLimits(Responses.duplicate(original), tenant), Outcome.DUPLICATE);
            }
        }
        // 7. the tenant's quota: hooks, then bytes
        TenantGate.Refusal quota = tenants.charge(tenant, body.length);
        if (quota != null) {
            metrics.refused(quota.scope());
            if (!shadow) {
                return done(withLimits(Responses.rateLimited(quota.scope().label, quota.waitNanos()), tenant),
                        Outcome.RATE_LIMITED);
            }
        }
        // 8. the tenant's share of the node's queue
        Object lease = tenants.acquire(tenant, body.length);
        if (lease instanceof TenantGate.Refusal share) {
            metrics.refused(Scope.TENANT_OVERLOAD);
            if (!shadow) {
                return done(withLimits(Responses.tenantOverload(Responses.retryAfterMs(share.waitNanos())), tenant),
                        Outcome.TENANT_OVERLOAD);
            }
            lease = TenantGate.NO_LEASE;
        }
        // 9. commit
        PendingHook pending = new PendingHook(tenant, source.id(), key, nowMillis, headerMap(headers), body);
        Object held = lease;
        CompletableFuture<CommitResult> commit;
        try {
            commit = sink.submit(pending);
        } catch (RuntimeException e) {
            tenants.release(held);
            return done(Responses.storeUnavailable(), Outcome.STORE_UNAVAILABLE);
        }
        return commit.handle((result, failure) -> {
            tenants.release(held);
            if (failure != null || result == null) {
                return new Answer(Responses.storeUnavailable(), Outcome.STORE_UNAVAILABLE);
            }
            return switch (result.status()) {
                case ACCEPTED -> new Answer(withLimits(Responses.accepted(result.id()), tenant), Outcome.ACCEPTED);
                case DUPLICATE -> new Answer(withLimits(Responses.duplicate(result.id()), tenant), Outcome.DUPLICATE);
                case OVERLOAD -> {
                    metrics.refused(Scope.OVERLOAD);
                    yield new Answer(Responses.overload(), Outcome.OVERLOAD);
                }
                case STORE_UNAVAILABLE -> new Answer(Responses.storeUnavailable(), Outcome.STORE_UNAVAILABLE);
            };
        });
    }

    private FullHttpResponse withLimits(FullHttpResponse response, String tenant) {
        String[] fields = tenants.rateLimitHeaders(tenant);
        if (fields != null) {
            response.headers().set("RateLimit-Policy", fields[0]).set("RateLimit", fields[1]);
        }
        return response;
    }

    private static CompletableFuture<Answer> done(FullHttpResponse response, Outcome outcome) {
        return CompletableFuture.completedFuture(new Answer(response, outcome));
    }

    private static String joined(List<String> values) {
        if (values.isEmpty()) {
            return null;
        }
        return values.size() == 1 ? values.get(0) : String.join(", ", values);
    }

    /** The request's headers in arrival order, repeated names joined with ", ". */
    private static Map<String, String> headerMap(HttpHeaders headers) {
        Map<String, String> map = new LinkedHashMap<>();
        Iterator<Map.Entry<String, String>> it = headers.iteratorAsString();
        while (it.hasNext()) {
            Map.Entry<String, String> e = it.next();
            map.merge(e.getKey(), e.getValue(), (a, b) -> a + ", " + b);
        }
        return map;
    }
}
