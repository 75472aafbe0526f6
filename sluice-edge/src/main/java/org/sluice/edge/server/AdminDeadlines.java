package org.sluice.edge.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.sluice.edge.http.Responses;

/**
 * {@code admin.read_timeout_ms} and {@code admin.idle_timeout_ms} on one admin connection.
 * Two handlers share this state, because a request starts before the codec can say so (a
 * slow client trickles header bytes the codec holds) and ends where only the codec knows:
 * <pre>
 *   bytes()      first in the pipeline, before TLS: the first byte after an idle spell
 *                starts the read deadline (a slow TLS handshake is a slow request)
 *   messages()   right after the HTTP codec: a whole request stops the deadline while the
 *                request is answered; a written response starts the idle deadline
 * </pre>
 * States: <b>idle</b> (the idle deadline runs), <b>reading</b> (the read deadline runs),
 * <b>working</b> ({@code pending > 0}: requests are being answered; no deadline). A read
 * deadline that fires answers {@code 408} when the request's headers had arrived and it was
 * not answered yet, else closes silently; an idle deadline closes silently.
 *
 * <p>Both handlers sit on one channel, so they and the timer tasks run on its event loop:
 * nothing here is shared between threads.
 *
 * <p>The hook listener's {@code http.ReadDeadlineHandler} follows requests the same way but is
 * apart on purpose: it has one deadline, from the moment the server waits for a request, and
 * no idle deadline started by the first byte; and it sits behind the in-order gate, after the
 * codec, so that it sees one pipelined request at a time.
 */
final class AdminDeadlines {

    private final long readTimeoutMs;
    private final long idleTimeoutMs;
    private ScheduledFuture<?> deadline;
    /** Requests read whole and not answered yet. */
    private int pending;
    /** Bytes arrived since the last whole request: a request (or handshake) has begun. */
    private boolean reading;
    /** The codec has produced the current request's head. */
    private boolean headersIn;
    /** The current request was answered before it was read whole (its body is being dropped). */
    private boolean answeredEarly;

    AdminDeadlines(long readTimeoutMs, long idleTimeoutMs) {
        this.readTimeoutMs = readTimeoutMs;
        this.idleTimeoutMs = idleTimeoutMs;
    }

    /** The handler that goes first in the pipeline. */
    ChannelHandler bytes() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                arm(ctx, idleTimeoutMs, false);
                ctx.fireChannelActive();
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                disarm();
                ctx.fireChannelInactive();
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof ByteBuf bytes && bytes.isReadable() && !reading) {
                    reading = true;
                    if (pending == 0) {
                        arm(ctx, readTimeoutMs, true);
                    }
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    /** The handler that goes right after the HTTP codec. */
    ChannelHandler messages() {
        return new ChannelDuplexHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest) {
                    headersIn = true;
                    answeredEarly = false;
                }
                if (msg instanceof LastHttpContent) {
                    reading = false;
                    headersIn = false;
                    if (answeredEarly) {
                        answeredEarly = false;
                        settle(ctx);
                    } else {
                        pending++;
                        disarm();
                    }
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ctx.write(msg, promise);
                if (msg instanceof HttpResponse response && response.status().code() != HttpResponseStatus.CONTINUE.code()
                        && ctx.channel().isOpen()) {
                    if (headersIn) {
                        answeredEarly = true; // answered mid-request (413): the read deadline keeps running
                    } else if (pending > 0) {
                        pending--;
                        settle(ctx);
                    }
                }
            }
        };
    }

    /** Nothing left to answer: wait for the next request, or for the rest of one already begun. */
    private void settle(ChannelHandlerContext ctx) {
        if (pending > 0) {
            return;
        }
        if (reading) {
            arm(ctx, readTimeoutMs, true);
        } else {
            arm(ctx, idleTimeoutMs, false);
        }
    }

    private void arm(ChannelHandlerContext ctx, long timeoutMs, boolean read) {
        disarm();
        deadline = ctx.executor().schedule(() -> expire(ctx, read), timeoutMs, TimeUnit.MILLISECONDS);
    }

    private void disarm() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    private void expire(ChannelHandlerContext ctx, boolean read) {
        deadline = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        if (read && headersIn && !answeredEarly) {
            FullHttpResponse response = Responses.requestTimeout();
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.channel().writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.channel().close();
        }
    }
}
