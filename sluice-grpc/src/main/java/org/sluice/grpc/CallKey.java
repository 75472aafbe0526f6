package org.sluice.grpc;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What a call is counted against: the key {@link RateLimitInterceptor} charges. Keys of the
 * built-in kinds carry a prefix ({@code addr:}, {@code header:}) so that a header value can
 * never take an address's bucket. A lambda is a key too:
 * <pre>
 * CallKey perMethod = (call, headers) -&gt; "method:" + call.getMethodDescriptor().getFullMethodName();
 * </pre>
 */
@FunctionalInterface
public interface CallKey {

    /** The key of a call, from its {@code headers} and the call ({@code getAttributes()}, the method); never null. */
    String of(ServerCall<?, ?> call, Metadata headers);

    /**
     * The peer's IP address ({@link Grpc#TRANSPORT_ATTR_REMOTE_ADDR}); a transport without
     * an IP address (in-process, a Unix socket) gives its address's text. No metadata is read.
     */
    static CallKey peerAddress() {
        return (call, headers) -> {
            SocketAddress peer = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
            if (peer instanceof InetSocketAddress inet && inet.getAddress() != null) {
                return "addr:" + inet.getAddress().getHostAddress();
            }
            return "addr:" + peer;
        };
    }

    /**
     * The value of ASCII metadata key {@code name} (an API key, a tenant id); a call without
     * it is counted under {@code fallback}.
     *
     * @throws IllegalArgumentException when {@code name} is not a valid ASCII metadata key
     *     (binary keys end in {@code -bin})
     */
    static CallKey header(String name, CallKey fallback) {
        Metadata.Key<String> key = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
        return (call, headers) -> {
            String value = headers.get(key);
            return value == null || value.isEmpty() ? fallback.of(call, headers) : "header:" + value;
        };
    }
}
