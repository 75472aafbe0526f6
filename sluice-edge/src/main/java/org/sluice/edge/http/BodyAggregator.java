package org.sluice.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.Arrays;
import org.sluice.edge.admission.RefusalScope;

/**
 * Pipeline position: after {@link ContinueHandler}, before {@link HookHandler}; the sink of
 * every body chunk.
 *
 * <p>Concern: reading the body, within its limit and the node's memory. The buffer starts
 * at most {@link #INITIAL_CAPACITY} bytes (exactly the declared length when that is
 * smaller) and grows, doubling, as bytes arrive, never past the declared length (nor the
 * body limit for an undeclared one), so a declared {@code Content-Length} costs nothing
 * until its bytes come. Every byte of buffer is held in {@link InflightBodies}: a buffer
 * that cannot be had or grown under {@code http.max_inflight_body_bytes} is answered
 * {@code 503 overload} (and the connection closes). An undeclared (chunked) body is
 * refused with {@code 413} the moment it passes its limit.
 *
 * <p>The received bytes are charged to the source's byte bucket once the body is complete
 * (a declared length was only checked against it before the body, see
 * {@link PreReadAdmissionHandler}): bytes that never arrive (the request was cut by the
 * read timeout, refused mid-body, or its client went away) are never charged.
 *
 * <p>Each chunk is released as soon as it is copied, so nothing reference counted outlives
 * the event loop's turn. Chunks that belong to no admitted request (the rest of a body that
 * was refused before it was read) are released unread. A complete body keeps its bytes held
 * until {@link HookHandler} has answered it; an incomplete one gives them back here.
 */
public final class BodyAggregator extends ChannelInboundHandlerAdapter {

    /** The largest first buffer of a body: 16 KiB. */
    public static final int INITIAL_CAPACITY = 16 * 1024;

    private final PreReadCharges charges;
    private final InflightBodies bodies;
    private final IngestMetrics metrics;

    private IngestExchange current;
    private byte[] body;
    private int length;

    public BodyAggregator(PreReadCharges charges, InflightBodies bodies) {
        this.charges = charges;
        this.bodies = bodies;
        this.metrics = charges.metrics();
    }

    /** The first buffer of a body with {@code declaredLength} (-1: undeclared) under {@code bodyLimit}. */
    static int initialCapacity(long declaredLength, long bodyLimit) {
        return (int) Math.min(declaredLength >= 0 ? declaredLength : bodyLimit, INITIAL_CAPACITY);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof IngestExchange exchange) {
            start(ctx, exchange);
            return;
        }
        if (!(msg instanceof HttpContent content)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (current == null) {
                return; // the rest of a refused request's body: dropped unread
            }
            if (content.decoderResult().isFailure()) {
                abort(ctx, Responses.badRequest(), IngestOutcome.BAD_REQUEST);
                return;
            }
            ByteBuf chunk = content.content();
            int n = chunk.readableBytes();
            if ((long) length + n > current.bodyLimit) {
                abort(ctx, Responses.payloadTooLarge(current.bodyLimit), IngestOutcome.PAYLOAD_TOO_LARGE);
                return;
            }
            if (length + n > body.length && !grow(length + n)) {
                abort(ctx, Responses.overload(), IngestOutcome.OVERLOAD);
                return;
            }
            chunk.readBytes(body, length, n);
            length += n;
            if (content instanceof LastHttpContent) {
                finish(ctx);
            }
        } finally {
            content.release();
        }
    }

    private void start(ChannelHandlerContext ctx, IngestExchange exchange) {
        if (exchange.bodyRead) {
            ctx.fireChannelRead(new ReceivedHook(exchange, new byte[0]));
            // the codec still sends an empty LastHttpContent for this request: released above
            return;
        }
        int capacity = initialCapacity(exchange.declaredLength, exchange.bodyLimit);
        if (!bodies.tryHold(capacity)) { // BodyRoomHandler saw room a moment ago; another loop took it since
            ResponseWriter.send(ctx, exchange, Responses.overload(), IngestOutcome.OVERLOAD, metrics);
            return;
        }
        current = exchange;
        length = 0;
        body = new byte[capacity];
    }

    /** Grows the buffer to hold at least {@code needed} bytes, doubling; false when the node has no room for it. */
    private boolean grow(int needed) {
        long ceiling = current.declaredLength >= 0 ? current.declaredLength : current.bodyLimit;
        int capacity = (int) Math.min(ceiling, Math.max((long) body.length * 2, needed));
        if (!bodies.tryHold(capacity - body.length)) {
            return false;
        }
        body = Arrays.copyOf(body, capacity);
        return true;
    }

    private void finish(ChannelHandlerContext ctx) {
        IngestExchange exchange = current;
        byte[] received = length == body.length ? body : Arrays.copyOf(body, length);
        bodies.release(body.length - received.length); // from here on the hook holds exactly its body
        reset();
        exchange.bodyRead = true;
        if (received.length > 0 && !exchange.sourceBytesRefused) {
            long wait = charges.limits().chargeSourceBytes(exchange.source.id(), received.length, charges.now());
            if (charges.refuses(RefusalScope.SOURCE, wait)) {
                bodies.release(received.length);
                ResponseWriter.send(ctx, exchange, Responses.refused(RefusalScope.SOURCE, wait), IngestOutcome.RATE_LIMITED, metrics);
                return;
            }
        }
        ctx.fireChannelRead(new ReceivedHook(exchange, received));
    }

    /** Answers the current request before its body is complete: its buffer is given back. */
    private void abort(ChannelHandlerContext ctx, FullHttpResponse answer, IngestOutcome outcome) {
        IngestExchange refused = current;
        bodies.release(body.length);
        reset();
        ResponseWriter.send(ctx, refused, answer, outcome, metrics);
    }

    /** The connection closed (the client went away, or the read timeout cut it) with a body half read. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (current != null) {
            bodies.release(body.length);
            reset();
        }
        ctx.fireChannelInactive();
    }

    private void reset() {
        current = null;
        body = null;
        length = 0;
    }
}
