package org.sluice.edge.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.sluice.edge.http.RequestProgress;

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
 * <p>The request itself (being read, answered early, owed a {@code 408}) is followed by
 * {@link RequestProgress}, as on the hook listener. The hook listener's
 * {@code http.ReadDeadlineHandler} runs its deadlines apart on purpose: it has one deadline,
 * from the moment the server waits for a request, and no idle deadline started by the first
 * byte; and it sits behind the in-order gate, after the codec, so that it sees one pipelined
 * request at a time.
 */
final class AdminDeadlines {

    private final long readTimeoutMs;
    private final long idleTimeoutMs;
    private ScheduledFuture<?> deadline;
    /** Requests read whole and not answered yet. */
    private int pending;
    /** Bytes arrived since the last whole request: a request (or handshake) has begun. */
    private boolean reading;
    /** The request the codec is producing: its head in, answered before it was read whole. */
    private final RequestProgress progress = new RequestProgress();

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
                switch (progress.read(msg)) {
                    case WHOLE -> {
                        reading = false;
                        pending++;
                        disarm();
                    }
                    case WHOLE_ANSWERED -> {
                        reading = false;
                        settle(ctx);
                    }
                    case BEGUN, NOTHING -> { }
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ctx.write(msg, promise);
                if (ctx.channel().isOpen()) {
                    switch (progress.wrote(msg)) {
                        case BETWEEN_REQUESTS -> {
                            if (pending > 0) {
                                pending--;
                                settle(ctx);
                            }
                        }
                        case MID_REQUEST -> { } // answered mid-request (413): the read deadline keeps running
                        case CONTINUE, NOTHING -> { }
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
        RequestProgress.timeOut(ctx.channel(), read && progress.owesTimeout());
    }
}
