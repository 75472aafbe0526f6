package org.sluice.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.LastHttpContent;
import org.sluice.edge.admission.PreReadLimits;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.config.RefusedBody;

/**
 * Pipeline position: after {@link BodySizeHandler} (a body over its limit is refused before
 * any bucket is charged), before {@link BodyRoomHandler}; no byte of the body has been read
 * yet, and no {@code 100 Continue} has been sent.
 *
 * <p>Concern: step 2, the node's CPU protection, in order: the client address, then the
 * node, then the source's bytes per second checked against the declared
 * {@code Content-Length}. The check charges nothing: {@link BodyAggregator} charges the bytes
 * once they have all arrived, so a declared body that never comes costs its source nothing
 * (an undeclared body is only charged then too). The first refusal answers
 * {@code 429 rate_limited} with its scope. An address refused here never touches the node's
 * bucket. In shadow mode a refusal is counted and the request goes on.
 *
 * <p>What happens to the refused request's body ({@code http.refused_body}): none of it is
 * verified or charged, and the connection is kept only when keeping it reads nothing more.
 * <ul>
 *   <li>{@code close_if_incomplete} (the default): a body declared with {@code Content-Length}
 *       of at most {@link #SMALL_BODY} bytes and no {@code Expect} is given until the end of
 *       the read that delivered the headers ({@code channelReadComplete}). The answer is
 *       built at once and held here; the body's chunks that came in the same read are
 *       released unread. If the last of them arrives, the body was already all received
 *       with the headers: the answer goes out and the connection stays open. If the read
 *       ends first, bytes are still on their way: the answer goes out with
 *       {@code Connection: close} and a {@link LingeringClose}, so nothing more is parsed.
 *       Any other body (bigger, chunked, behind {@code Expect: 100-continue}) closes at once.
 *       Under a flood of small hooks sent whole, a refusal then costs no new connection;
 *       a refused sender that still has a body to send never gets it read.</li>
 *   <li>{@code close}: the 429 carries {@code Connection: close} at once and the connection
 *       ends in a {@link LingeringClose}: the codec is taken out, the answer flushed, the
 *       output shut down, the body's in-flight bytes drained unread, then the close.</li>
 *   <li>{@code discard}: a small declared body without {@code Expect} is dropped as it
 *       arrives, however long that takes, and the connection stays open; any other body
 *       closes.</li>
 * </ul>
 * A refused request without a body keeps its connection alive whenever the client asked
 * for it.
 *
 * <p>Event-loop confined: the held answer is a plain field. Requests reach this handler one
 * at a time ({@link InOrderGate}), so at most one answer is held per connection.
 */
public final class PreReadAdmissionHandler extends ChannelInboundHandlerAdapter {

    /** The biggest declared body a refusal may drop rather than close for: 64 KiB. */
    static final long SMALL_BODY = 64 * 1024;

    private final PreReadCharges charges;
    private final RefusedBody refusedBody;
    private final IngestMetrics metrics;

    /** A refused request whose small body may still arrive whole in the current read, and its answer. */
    private IngestExchange held;
    private FullHttpResponse heldAnswer;

    public PreReadAdmissionHandler(PreReadCharges charges, RefusedBody refusedBody) {
        this.charges = charges;
        this.refusedBody = refusedBody;
        this.metrics = charges.metrics();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (held != null && msg instanceof HttpContent content) {
            bodyOfHeld(ctx, content);
            return;
        }
        if (!(msg instanceof IngestExchange exchange)) {
            ctx.fireChannelRead(msg);
            return;
        }
        PreReadLimits limits = charges.limits();
        long now = charges.now();
        if (refused(ctx, exchange, RefusalScope.IP, limits.chargeAddress(exchange.client, now))
                || refused(ctx, exchange, RefusalScope.NODE, limits.chargeNode(now))) {
            return;
        }
        if (exchange.declaredLength > 0) {
            long wait = limits.sourceBytesWait(exchange.source.id(), exchange.declaredLength, now);
            if (refused(ctx, exchange, RefusalScope.SOURCE, wait)) {
                return;
            }
            exchange.sourceBytesRefused = wait != 0; // shadow mode: counted once, here
        }
        ctx.fireChannelRead(exchange);
    }

    private boolean refused(ChannelHandlerContext ctx, IngestExchange exchange, RefusalScope scope, long waitNanos) {
        if (!charges.refuses(scope, waitNanos)) {
            return false;
        }
        FullHttpResponse answer = Responses.refused(scope, waitNanos);
        boolean small = exchange.bodyPending() && !exchange.chunked && exchange.declaredLength <= SMALL_BODY
                && !exchange.request.headers().contains(HttpHeaderNames.EXPECT);
        if (small && refusedBody == RefusedBody.CLOSE_IF_INCOMPLETE) {
            held = exchange; // answered by bodyOfHeld or channelReadComplete, whichever comes first
            heldAnswer = answer;
            return true;
        }
        exchange.dropBody = small && refusedBody == RefusedBody.DISCARD;
        ResponseWriter.send(ctx, exchange, answer, IngestOutcome.RATE_LIMITED, metrics);
        return true;
    }

    /** A chunk of the held request's body, from the read that brought its headers: released unread. */
    private void bodyOfHeld(ChannelHandlerContext ctx, HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        boolean malformed = content.decoderResult().isFailure();
        content.release();
        if (malformed) {
            answerHeld(ctx); // the body is not what it declared: close
        } else if (last) {
            held.bodyRead = true; // all of it had arrived with the headers: nothing left to read
            answerHeld(ctx);
        }
    }

    /** The read ended with the held request's body incomplete (or it is answered now anyway). */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held != null) {
            answerHeld(ctx); // bytes still on their way: the answer closes the connection
        }
        ctx.fireChannelReadComplete();
    }

    private void answerHeld(ChannelHandlerContext ctx) {
        IngestExchange exchange = held;
        FullHttpResponse answer = heldAnswer;
        held = null;
        heldAnswer = null;
        ResponseWriter.send(ctx, exchange, answer, IngestOutcome.RATE_LIMITED, metrics);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (heldAnswer != null) {
            heldAnswer.release();
            held = null;
            heldAnswer = null;
        }
        ctx.fireChannelInactive();
    }
}
