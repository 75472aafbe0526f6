package org.sluice.edge.delivery.http;

import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.route.Transform;
import org.sluice.edge.store.StoredHook;

/**
 * One attempt to a destination with a {@code transform}: what it sends once reshaped. The
 * signature is made over the body as sent; the transform's headers replace Sluice's and the
 * configured ones of the same name (it cannot name the reserved ones: its reader refuses
 * them), and a reshaped body is sent as {@code content-type: application/json} unless the
 * transform sets another.
 *
 * @param method  the method ({@code POST} unless the transform names one)
 * @param target  the request target: the URL's path and query, or the transform's
 * @param headers every header of the attempt, in order
 * @param body    the body as sent
 */
record Reshaped(HttpMethod method, String target, List<Map.Entry<String, String>> headers, byte[] body) {

    private static final String CONTENT_TYPE = "content-type";

    /**
     * Applies {@code d}'s transform to attempt {@code attempt} of {@code hook}.
     *
     * @return the attempt as reshaped, or, when the transform fails, its finished outcome:
     *     {@link AttemptResult#untransformable()} with {@code transform_error: <reason>}
     */
    static Transform.Outcome apply(Destination d, StoredHook hook, LongSupplier nanoTime) {
        return d.transform().orElseThrow().apply(new Transform.Input(hook.id(), hook.tenant(), hook.source(), hook.body()),
                nanoTime);
    }

    /** The outcome of an attempt whose transform failed: nothing was sent. */
    static CompletableFuture<AttemptOutcome> failed(Transform.Outcome.Failed f) {
        return CompletableFuture.completedFuture(new AttemptOutcome(AttemptResult.untransformable(),
                "transform_error: " + f.reason()));
    }

    /** Attempt {@code attempt} of {@code hook} to {@code d} as {@code r} reshapes it, signed at {@code epochSeconds}. */
    static Reshaped of(Destination d, Transform.Request r, StoredHook hook, int attempt, long epochSeconds) {
        StoredHook sent = r.body() == null ? hook
                : hook.withBody(r.body());
        List<Map.Entry<String, String>> own = new ArrayList<>(r.headers());
        if (r.body() != null && own.stream().noneMatch(h -> h.getKey().equals(CONTENT_TYPE))) {
            own.add(Map.entry(CONTENT_TYPE, "application/json"));
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (Map.Entry<String, String> h : d.headers().forAttempt(sent, attempt, epochSeconds)) {
            if (own.stream().noneMatch(mine -> mine.getKey().equalsIgnoreCase(h.getKey()))) {
                headers.add(h);
            }
        }
        headers.addAll(own);
        return new Reshaped(r.method() == null ? HttpMethod.POST : HttpMethod.valueOf(r.method()),
                r.target(HttpDeliveryClient.target(d).url()), headers, sent.body());
    }
}
