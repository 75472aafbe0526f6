package org.sluice.edge.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.telemetry.IngestSpan;
import org.sluice.edge.telemetry.Telemetry;
import org.sluice.edge.verify.HeaderLookup;
import org.sluice.edge.verify.VerifyOutcome;
import org.sluice.edge.admission.Admission;
import org.sluice.edge.admission.RateLimitFields;
import org.sluice.edge.admission.Refusal;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.admission.TenantGate;

/**
 * Steps 5 to 9 of the contract, for one hook whose body has been read: verification, the
 * duplicate check, admission (one call, {@link TenantGate#admit}: the fleet's answer under
 * the fleet scope, the tenant's quota, its queue share), then the commit. Runs on a worker
 * thread for a body over 64 KiB (verifying a big body takes long). A smaller hook runs on
 * its connection's event loop instead ({@link HookHandler}), where a hand-off would cost
 * more than the work: there its duplicate lookup is answered from memory (the memtables,
 * the block cache, the bloom filters), and one that needs the disk is handed to a worker,
 * which finishes the stage. The intake's writer thread only completes the commit's future:
 * what follows (the admission settled with the commit's result, the RateLimit values, the
 * response) runs back where the stage ran (the worker pool or that event loop), so the
 * writer goes on to its next batch at once.
 *
 * <p>The order is what makes the tenant's budget honest: a forged hook is refused before
 * any tenant charge, and a duplicate is answered before one. What admission holds (a
 * queue-share lease, a fleet claim) is held until the intake has answered, then settled.
 *
 * <p>With tracing on, each hook's stage is one span ({@link IngestSpan}): verification,
 * admission and the commit are its events, and the hook is committed with its
 * {@code traceparent}. Off, the span is {@link IngestSpan#NONE} and costs nothing.
 */
public final class HookStage {

    /** A response and the outcome it is counted as. */
    record Response(FullHttpResponse response, IngestOutcome outcome) {
    }

    private final TenantGate tenants;
    private final HookSink sink;
    private final IngestMetrics metrics;
    private final LongSupplier epochMillis;
    /** Where the stage continues after the fleet's answer and after the commit (the worker pool). */
    private final Executor continuation;
    private final Telemetry telemetry;

    public HookStage(TenantGate tenants, HookSink sink, IngestMetrics metrics, LongSupplier epochMillis,
              Executor continuation) {
        this(tenants, sink, metrics, epochMillis, continuation, Telemetry.off());
    }

    /** As the stage above, with each hook's ingest traced by {@code telemetry}. */
    public HookStage(TenantGate tenants, HookSink sink, IngestMetrics metrics, LongSupplier epochMillis,
              Executor continuation, Telemetry telemetry) {
        this.telemetry = telemetry;
        this.continuation = guarded(continuation);
        this.tenants = tenants;
        this.sink = sink;
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
        IngestExchange exchange = hook.exchange();
        HttpHeaders headers = exchange.request.headers();
        HeaderLookup lookup = name -> joined(headers.getAll(name));
        IngestSpan span = telemetry.startIngest(lookup, exchange.tenant, exchange.source.id());
        if (span == IngestSpan.NONE) {
            return run(hook, lookup, span, after, mustNotWait);
        }
        CompletableFuture<Response> answered;
        try {
            answered = run(hook, lookup, span, after, mustNotWait);
        } catch (RuntimeException | Error e) { // the caller answers it; the span still ends
            span.end(IngestOutcome.STORE_UNAVAILABLE.label, 503);
            throw e;
        }
        return answered.whenComplete((response, failure) -> {
            if (response != null) {
                span.end(response.outcome().label, response.response().status().code());
            } else {
                span.end(IngestOutcome.STORE_UNAVAILABLE.label, 503);
            }
        });
    }

    private CompletableFuture<Response> run(ReceivedHook hook, HeaderLookup lookup, IngestSpan span, Executor after,
                                            boolean mustNotWait) {
        IngestExchange exchange = hook.exchange();
        SourceRoute source = exchange.source;
        String tenant = exchange.tenant;
        byte[] body = hook.body();
        HttpHeaders headers = exchange.request.headers();
        long nowMillis = epochMillis.getAsLong();

        // 5. verification: a forged hook spends nothing of the tenant's
        VerifyOutcome verified = source.verifier().verify(lookup, body, nowMillis / 1000L);
        span.verified(verified == VerifyOutcome.OK ? "ok" : verified.reason());
        if (verified != VerifyOutcome.OK) {
            return done(Responses.verificationFailed(verified.reason()), IngestOutcome.VERIFICATION_FAILED);
        }
        // 6. duplicate: answered with the first id, spends nothing either
        String key = source.dedupe().extract(lookup, body);
        String original = null;
        if (key != null && mustNotWait) {
            DuplicateLookup found = sink.findDuplicateInMemory(tenant, source.id(), key);
            if (!found.known()) { // on the disk: a worker reads it, and the stage goes on there
                return CompletableFuture.supplyAsync(() -> afterLookup(exchange, headers, body, key, nowMillis,
                        sink.findDuplicate(tenant, source.id(), key), span, continuation), continuation).thenCompose(f -> f);
            }
            original = found.original();
        } else if (key != null) {
            original = sink.findDuplicate(tenant, source.id(), key);
        }
        return afterLookup(exchange, headers, body, key, nowMillis, original, span, after);
    }

    /** Steps 6a to 9, once the duplicate lookup has found {@code original} (null: none). */
    private CompletableFuture<Response> afterLookup(IngestExchange exchange, HttpHeaders headers, byte[] body, String key,
                                                  long nowMillis, String original, IngestSpan span, Executor after) {
        SourceRoute source = exchange.source;
        String tenant = exchange.tenant;
        if (original != null) {
            return answer(tenants.knownDuplicate(tenant, original), exchange, headers, body, key, nowMillis, span, after);
        }
        // 6a. a store at store.max_bytes takes no new hook (a duplicate was answered above:
        // it adds nothing); refused before any quota, fleet claim or queue share is spent
        if (sink.storeFull()) {
            return done(Responses.storeFull(), IngestOutcome.STORE_FULL);
        }
        // 6b to 8. admission's one call: the fleet (scope fleet), the tenant's quota, its queue share
        CompletableFuture<Admission> decided =
                tenants.admit(tenant, source.id(), key, body.length, after).toCompletableFuture();
        Admission now = decided.getNow(null);
        if (now != null) {
            return answer(now, exchange, headers, body, key, nowMillis, span, after);
        }
        return decided.thenCompose(admission -> answer(admission, exchange, headers, body, key, nowMillis, span, after));
    }

    /** Admission's answer: the response for a refusal, a duplicate or a pending claim, else step 9. */
    private CompletableFuture<Response> answer(Admission admission, IngestExchange exchange, HttpHeaders headers, byte[] body,
                                               String key, long nowMillis, IngestSpan span, Executor after) {
        span.admission(admission.kind());
        return switch (admission.kind()) {
            case ADMITTED -> commit((Admission.Admitted) admission, exchange, headers, body, key, nowMillis, span, after);
            case REFUSED -> {
                Admission.Refused refused = (Admission.Refused) admission;
                Refusal refusal = refused.refusal();
                metrics.refused(refusal.scope());
                yield done(withLimits(Responses.refused(refusal), refused.rateLimit()),
                        refusal.scope() == RefusalScope.TENANT_OVERLOAD ? IngestOutcome.TENANT_OVERLOAD : IngestOutcome.RATE_LIMITED);
            }
            case DUPLICATE -> {
                Admission.Duplicate duplicate = (Admission.Duplicate) admission;
                yield done(withLimits(Responses.duplicate(duplicate.hookId()), duplicate.rateLimit()), IngestOutcome.DUPLICATE);
            }
            case PENDING -> done(Responses.dedupePending(((Admission.Pending) admission).retryAfterMs()),
                    IngestOutcome.DEDUPE_PENDING);
        };
    }

    /**
     * Step 9: the commit (the writer's own dedupe check runs here, after the fleet's), then
     * the admission settled once with its result, where the stage runs ({@code after}).
     */
    private CompletableFuture<Response> commit(Admission.Admitted admitted, IngestExchange exchange, HttpHeaders headers,
                                               byte[] body, String key, long nowMillis, IngestSpan span,
                                               Executor after) {
        for (Refusal shadowed : admitted.shadowRefusals()) { // shadow mode: counted, and the hook goes on
            metrics.refused(shadowed.scope());
        }
        SourceRoute source = exchange.source;
        PendingHook pending = new PendingHook(exchange.tenant, source.id(), key, nowMillis, headerMap(headers, source.stored()), body,
                source.routes().select(headers::get, body), // deliver_to's filters, evaluated once, here
                span.traceparent()); // null when tracing is off
        CompletableFuture<CommitResult> commit;
        try {
            commit = sink.submit(pending);
        } catch (RuntimeException e) {
            admitted.settle(null);
            return done(Responses.storeUnavailable(), IngestOutcome.STORE_UNAVAILABLE);
        }
        return commit.handleAsync((result, failure) -> {
            admitted.settle(failure == null ? result : null); // a fleet settle only enqueues: never on the 2xx's critical path
            span.committed(failure != null || result == null ? CommitResult.Status.STORE_UNAVAILABLE : result.status(),
                    failure != null || result == null ? null : result.id());
            if (failure != null || result == null) {
                return new Response(Responses.storeUnavailable(), IngestOutcome.STORE_UNAVAILABLE);
            }
            return switch (result.status()) {
                case ACCEPTED -> new Response(withLimits(Responses.accepted(result.id()), admitted.rateLimit()),
                        IngestOutcome.ACCEPTED);
                case DUPLICATE -> new Response(withLimits(Responses.duplicate(result.id()), admitted.rateLimit()),
                        IngestOutcome.DUPLICATE);
                case OVERLOAD -> {
                    metrics.refused(RefusalScope.OVERLOAD);
                    yield new Response(Responses.overload(), IngestOutcome.OVERLOAD);
                }
                case STORE_UNAVAILABLE -> new Response(Responses.storeUnavailable(), IngestOutcome.STORE_UNAVAILABLE);
            };
        }, after);
    }

    private static FullHttpResponse withLimits(FullHttpResponse response, RateLimitFields fields) {
        if (fields != null) {
            response.headers().set("RateLimit-Policy", fields.policy()).set("RateLimit", fields.current());
        }
        return response;
    }

    private static CompletableFuture<Response> done(FullHttpResponse response, IngestOutcome outcome) {
        return CompletableFuture.completedFuture(new Response(response, outcome));
    }

    private static String joined(List<String> values) {
        if (values.isEmpty()) {
            return null;
        }
        return values.size() == 1 ? values.get(0) : String.join(", ", values);
    }

    /**
     * The request's headers the source stores ({@code stored}), in arrival order; a name
     * repeated, in any case, is joined with ", " under its first spelling
     * ({@link OrderedHeaders#adopt}).
     */
    private static Map<String, String> headerMap(HttpHeaders headers, StoredHeaderNames stored) {
        String[] fields = new String[2 * headers.size()];
        int n = 0;
        Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); // the decoder's entries, no copies
        while (it.hasNext() && n < fields.length / 2) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            if (!stored.keeps(e.getKey())) {
                continue;
            }
            fields[2 * n] = e.getKey().toString();
            fields[2 * n + 1] = e.getValue().toString();
            n++;
        }
        return OrderedHeaders.adopt(fields, n);
    }
}
