package org.sluice.edge.delivery.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.RetryAfter;
import org.sluice.edge.delivery.AttemptOutcome;

/**
 * One attempt of the HTTP client (one request, its connection and its answer): completes
 * exactly once (answer, failure or timeout), then either returns its connection to the
 * pool or closes it. Every field is touched on event loops only; {@code done} makes the
 * first completion win.
 */
final class HttpAttempt {
    private final HttpDeliveryClient client;
    final Pool pool;
    final HttpMethod method;
    /** The request target: the URL's path and query, or a transform's. */
    final String target;
    final List<Map.Entry<String, String>> headers;
    final byte[] body;
    final CompletableFuture<AttemptOutcome> future = new CompletableFuture<>();
    final AtomicBoolean done = new AtomicBoolean();
    volatile ScheduledFuture<?> timer;
    volatile ChannelFuture connecting;
    volatile Channel channel;
    /** Started on a pooled connection that has not been replaced by a fresh one yet. */
    volatile boolean pooled;
    // read on the channel's event loop
    int status;
    long retryAfterMillis = RetryAfter.NONE;
    boolean keepAlive;
    long bodyBytes;

    HttpAttempt(HttpDeliveryClient client, Pool pool, List<Map.Entry<String, String>> headers, byte[] body) {
        this(client, pool, HttpMethod.POST, pool.target, headers, body);
    }

    HttpAttempt(HttpDeliveryClient client, Pool pool, HttpMethod method, String target,
                List<Map.Entry<String, String>> headers, byte[] body) {
        this.client = client;
        this.pool = pool;
        this.method = method;
        this.target = target;
        this.headers = headers;
        this.body = body;
    }

    void start(Channel ch) {
        channel = ch;
        if (done.get()) { // timed out while connecting
            ch.close();
            return;
        }
        AnswerHandler handler = ch.pipeline().get(AnswerHandler.class);
        handler.attempt = this;
        ch.writeAndFlush(request(pool, method, target, headers, body)).addListener(w -> {
            if (!w.isSuccess()) {
                if (handler.attempt != this) {
                    return; // the handler has settled it already (the connection closed first)
                }
                handler.attempt = null;
                ch.close();
                if (!retryFresh()) {
                    complete(failure(AttemptResult.Failure.RESET, "write failed: " + brief(w.cause())), null);
                }
            }
        });
    }

    /**
     * A pooled keep-alive connection that the destination closed while it sat idle
     * fails before any answer: that is not the destination's answer to this attempt, so
     * the request goes once more on a fresh connection, within the same timeout. The
     * destination may have read the first request (a repeat, with the same
     * {@code webhook-id}); at-least-once allows it. Returns false when this does not
     * apply (a fresh connection, an answer begun, the attempt over).
     */
    boolean retryFresh() {
        if (!pooled || status != 0 || done.get() || pool.clientClosed.get()) {
            return false;
        }
        pooled = false;
        channel = null;
        client.connect(pool, this);
        return true;
    }

    void timedOut() {
        abort(failure(AttemptResult.Failure.TIMEOUT, "timeout after " + pool.destination.timeoutMs() + " ms"));
    }

    /** Completes the attempt with {@code outcome} unless it completed already, and drops its connection or connect. */
    void abort(AttemptOutcome outcome) {
        if (complete(outcome, null)) {
            ChannelFuture c = connecting;
            if (c != null) {
                c.cancel(false);
            }
            Channel ch = channel;
            if (ch != null) {
                ch.close();
            } else if (c != null && c.isSuccess()) {
                c.channel().close();
            }
        }
    }

    /** Completes the attempt once; {@code reuse} is the connection to pool again, or null. */
    boolean complete(AttemptOutcome outcome, Channel reuse) {
        if (!done.compareAndSet(false, true)) {
            return false;
        }
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        pool.live.remove(this);
        if (reuse != null) {
            pool.giveBack(reuse);
        }
        future.complete(outcome);
        return true;
    }

    // ------------------------------------------------------------------ the request and the verdicts

    static FullHttpRequest request(Pool pool, HttpMethod method, String target, List<Map.Entry<String, String>> headers,
                                   byte[] body) {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, target,
                Unpooled.wrappedBuffer(body));
        req.headers().set(HttpHeaderNames.HOST, pool.hostHeader);
        for (Map.Entry<String, String> h : headers) {
            req.headers().add(h.getKey(), h.getValue());
        }
        req.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return req;
    }

    static AttemptOutcome answered(HttpAttempt ex) {
        return new AttemptOutcome(AttemptResult.answered(ex.status, ex.retryAfterMillis), null);
    }

    static AttemptOutcome failure(AttemptResult.Failure kind, String error) {
        return new AttemptOutcome(AttemptResult.failed(kind), error);
    }

    static String connectError(Throwable cause) {
        if (cause instanceof ConnectException && String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT).contains("refused")) {
            return "connect refused";
        }
        if (cause instanceof UnknownHostException) {
            return "unknown host";
        }
        if (cause instanceof io.netty.channel.ConnectTimeoutException) {
            return "connect timeout";
        }
        if (cause instanceof ClosedChannelException) {
            return "connect aborted";
        }
        return "connect failed: " + brief(cause);
    }

    /** A short, bounded description of an error (no stack, no unbounded message). */
    static String brief(Throwable t) {
        if (t == null) {
            return "unknown";
        }
        String m = t.getMessage();
        String s = t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        return s.length() > 120 ? s.substring(0, 120) : s;
    }
}
