package org.sluice.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.Any;
import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;

/**
 * {@link RateLimitInterceptor} in a real grpc-java Netty server on a loopback port, called
 * through a real client channel, on a manual clock. The service is defined without
 * generated code: two unary methods on UTF-8 strings.
 */
class RateLimitInterceptorTest {

    private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }
    };
    private static final MethodDescriptor<String, String> SAY = method("Say");
    private static final MethodDescriptor<String, String> ASK = method("Ask");
    private static final Metadata.Key<String> API_KEY = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicInteger served = new AtomicInteger();
    private Server server;
    private ManagedChannel channel;

    private static MethodDescriptor<String, String> method(String name) {
        return MethodDescriptor.<String, String>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName("sluice.test.Echo", name))
                .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8)
                .build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private KeyedLimiter<String> limiter(Limit limit) {
        return KeyedLimiter.<String>builder().clock(now::get).bandwidth(limit).build();
    }

    private void start(RateLimitInterceptor interceptor) throws Exception {
        ServerServiceDefinition service = ServerServiceDefinition.builder("sluice.test.Echo")
                .addMethod(SAY, ServerCalls.asyncUnaryCall((request, response) -> {
                    served.incrementAndGet();
                    response.onNext("said " + request);
                    response.onCompleted();
                }))
                .addMethod(ASK, ServerCalls.asyncUnaryCall((request, response) -> {
                    served.incrementAndGet();
                    response.onNext("asked " + request);
                    response.onCompleted();
                }))
                .build();
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(ServerInterceptors.intercept(service, interceptor))
                .build().start();
        channel = NettyChannelBuilder.forAddress(server.getListenSockets().get(0)).usePlaintext().build();
    }

    private String call(MethodDescriptor<String, String> method, String apiKey) {
        CallOptions options = CallOptions.DEFAULT;
        if (apiKey == null) {
            return ClientCalls.blockingUnaryCall(channel, method, options, "hi");
        }
        Metadata headers = new Metadata();
        headers.put(API_KEY, apiKey);
        return ClientCalls.blockingUnaryCall(
                io.grpc.ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
                method, options, "hi");
    }

    private StatusRuntimeException refused(MethodDescriptor<String, String> method, String apiKey) {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> call(method, apiKey));
        assertThat(e).as("the call must be refused").isNotNull();
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        return e;
    }

    /** The retry delay of the {@code RetryInfo} in the refusal's status details. */
    private static Duration retryDelay(StatusRuntimeException e) throws Exception {
        com.google.protobuf.Duration delay = retryInfo(e).getRetryDelay();
        return Duration.ofSeconds(delay.getSeconds(), delay.getNanos());
    }

    private static RetryInfo retryInfo(StatusRuntimeException e) throws Exception {
        com.google.rpc.Status details = StatusProto.fromThrowable(e);
        assertThat(details).as("grpc-status-details-bin").isNotNull();
        assertThat(details.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED.value());
        assertThat(details.getMessage()).isEqualTo("rate limit exceeded");
        assertThat(details.getDetailsCount()).isEqualTo(1);
        Any detail = details.getDetails(0);
        assertThat(detail.is(RetryInfo.class)).isTrue();
        return detail.unpack(RetryInfo.class);
    }

    @Test
    void admitsTheBurstPerPeerThenRefusesWithRetryInfoAndRetryAfter() throws Exception {
        start(RateLimitInterceptor.builder(limiter(Limit.of(1, 3))).build());

        for (int i = 0; i < 3; i++) {
            assertThat(call(SAY, null)).isEqualTo("said hi");
        }
        StatusRuntimeException e = refused(SAY, null);
        assertThat(served).hasValue(3);
        assertThat(e.getTrailers().get(RateLimitInterceptor.RETRY_AFTER)).isEqualTo("1");
        assertThat(retryDelay(e)).isEqualTo(Duration.ofSeconds(1));

        now.addAndGet(999_999_999L);
        refused(SAY, null);
        now.addAndGet(1);
        assertThat(call(SAY, null)).isEqualTo("said hi");
        refused(SAY, null);
        assertThat(served).hasValue(4);
    }

    @Test
    void theRetryDelayIsTheExactWaitAndRetryAfterItsSecondsRoundedUp() throws Exception {
        start(RateLimitInterceptor.builder(limiter(Limit.of(0.4, 1))).build());   // one per 2.5 s

        call(SAY, null);
        now.addAndGet(100_000_000L);
        StatusRuntimeException e = refused(SAY, null);

        assertThat(retryDelay(e)).isEqualTo(Duration.ofMillis(2_400));
        assertThat(e.getTrailers().get(RateLimitInterceptor.RETRY_AFTER)).isEqualTo("3");
        assertThat(served).hasValue(1);
    }

    @Test
    void aHeaderKeyGivesEachCallerItsOwnBucketAndCallsWithoutItShareThePeers() throws Exception {
        start(RateLimitInterceptor.builder(limiter(Limit.of(1, 2)))
                .key(CallKey.header("x-api-key", CallKey.peerAddress()))
                .build());

        call(SAY, "alpha");
        call(SAY, "alpha");
        refused(SAY, "alpha");
        call(SAY, "beta");
        call(SAY, "beta");
        refused(SAY, "beta");
        call(SAY, null);
        call(SAY, null);
        refused(SAY, null);
        assertThat(served).hasValue(6);
    }

    @Test
    void aCallersFunctionChoosesTheKey() throws Exception {
        start(RateLimitInterceptor.builder(limiter(Limit.of(1, 1)))
                .key((call, headers) -> "method:" + call.getMethodDescriptor().getFullMethodName())
                .build());

        assertThat(call(SAY, null)).isEqualTo("said hi");
        assertThat(call(ASK, null)).isEqualTo("asked hi");
        refused(SAY, null);
        refused(ASK, null);
        assertThat(served).hasValue(2);
    }

    @Test
    void aHeaderKeyMustBeAnAsciiMetadataKey() {
        assertThatThrownBy(() -> CallKey.header("x-api-key-bin", CallKey.peerAddress()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallKey.header("bad key", CallKey.peerAddress()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
