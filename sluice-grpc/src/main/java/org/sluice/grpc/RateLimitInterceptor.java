package org.sluice.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Objects;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Probe;

/**
 * A grpc-java {@link ServerInterceptor} that charges one permit per call to a {@link
 * KeyedLimit} (any scope: a {@code KeyedLimiter} in memory, a shared-memory or a Redis
 * limiter) under the key a {@link CallKey} gives, when the call starts (on its headers,
 * before any message is read). An admitted call goes on untouched. A refused one is
 * closed at once with {@code RESOURCE_EXHAUSTED} and two trailers saying when to retry:
 * <ul>
 *   <li>{@code grpc-status-details-bin}: a {@code google.rpc.Status} whose one detail is a
 *       {@code google.rpc.RetryInfo}, the retry delay exact to the nanosecond. It is
 *       gRPC's own way to say this (the error model of Google's APIs), read by any client
 *       with grpc-protobuf ({@code StatusProto.fromThrowable}).</li>
 *   <li>{@code retry-after}: the same wait in whole seconds, rounded up, at least 1, as
 *       HTTP's {@code Retry-After}: for a client without protobuf, and for an HTTP gateway
 *       in front of the service.</li>
 * </ul>
 * The service's handler is never called for a refused call. The interceptor holds no state
 * of its own: it is thread-safe if the limit is. It runs on the transport's thread, so give
 * it an in-memory or shared-memory limit, or the Redis one only behind a server executor
 * that may block for a round trip.
 *
 * <pre>
 * KeyedLimiter&lt;String&gt; limit = KeyedLimiter.&lt;String&gt;builder().bandwidth(Limit.of(10, 20)).build();
 * Server server = NettyServerBuilder.forPort(8443)
 *     .addService(ServerInterceptors.intercept(service, RateLimitInterceptor.builder(limit)
 *         .key(CallKey.header("x-api-key", CallKey.peerAddress()))
 *         .build()))
 *     .build();
 * </pre>
 */
public final class RateLimitInterceptor implements ServerInterceptor {

    /** The whole seconds to wait, as HTTP's {@code Retry-After}. */
    public static final Metadata.Key<String> RETRY_AFTER = Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER);

    /** gRPC's status details trailer: a serialized {@code google.rpc.Status}. */
    static final Metadata.Key<byte[]> STATUS_DETAILS = Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

    private static final long SECOND = 1_000_000_000L;
    private static final String DESCRIPTION = "rate limit exceeded";

    private final KeyedLimit<String> limit;
    private final CallKey key;

    private RateLimitInterceptor(Builder builder) {
        this.limit = builder.limit;
        this.key = builder.key;
    }

    /** An interceptor over {@code limit}; by default keyed by the peer's address. */
    public static Builder builder(KeyedLimit<String> limit) {
        return new Builder(limit);
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                      ServerCallHandler<Q, A> next) {
        Probe probe = new Probe();
        if (limit.tryAcquire(key.of(call, headers), 1, probe)) {
            return next.startCall(call, headers);
        }
        long wait = probe.waitNanos();
        Metadata trailers = new Metadata();
        trailers.put(RETRY_AFTER, Long.toString(Math.max(1L, wait / SECOND + (wait % SECOND > 0 ? 1 : 0))));
        trailers.put(STATUS_DETAILS, RetryInfoDetails.status(Status.Code.RESOURCE_EXHAUSTED.value(), DESCRIPTION, wait));
        call.close(Status.RESOURCE_EXHAUSTED.withDescription(DESCRIPTION), trailers);
        return new ServerCall.Listener<>() {
        };
    }

    /** Builds a {@link RateLimitInterceptor}. */
    public static final class Builder {

        private final KeyedLimit<String> limit;
        private CallKey key = CallKey.peerAddress();

        private Builder(KeyedLimit<String> limit) {
            this.limit = Objects.requireNonNull(limit, "limit");
        }

        /** What each call is counted against (default: the peer's address). */
        public Builder key(CallKey key) {
            this.key = Objects.requireNonNull(key, "key");
            return this;
        }

        /** The interceptor. */
        public RateLimitInterceptor build() {
            return new RateLimitInterceptor(this);
        }
    }
}
