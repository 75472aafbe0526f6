package org.sluice.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Pipeline position: installed in place of the HTTP codec (after the {@code SslHandler}
 * when there is one) on a connection that answered a request before reading its body and
 * is now closing; from then on it is the end of the inbound path.
 *
 * <p>Concern: the client must receive that answer. Closing a socket whose receive buffer
 * still holds unread bytes (the refused body, already in flight) makes the kernel send a
 * reset, and a reset can destroy the answer before the client has read it. So the close
 * lingers, as web servers' "lingering close" does:
 * <ol>
 *   <li>the codec is removed: whatever the client sent after the request's headers (the
 *       body, and any request pipelined behind it) is never parsed; the bytes the codec
 *       already held, and every byte read from now on, arrive here and are released unread;
 *   <li>once the answer is flushed: with TLS, a {@code close_notify}; then the output is
 *       shut down (FIN), so the client sees the answer and then end of stream;
 *   <li>the connection is closed when the client closes its side, or after
 *       {@link #LINGER_MILLIS}, or once {@link #LINGER_BYTES} more bytes have arrived,
 *       whichever comes first.
 * </ol>
 * Counting is the only thing done with the drained bytes: nothing is buffered, verified or
 * charged. With TLS the {@code SslHandler} still decrypts records while draining; if the
 * TLS engine refuses them after its {@code close_notify}, the connection simply closes.
 *
 * <p>Event-loop confined: plain fields.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {

    /** The longest a closing connection waits for the client to stop sending: 2 s. */
    static final long LINGER_MILLIS = 2_000L;
    /** The most bytes a closing connection drains before it closes anyway: 1 MiB. */
    static final long LINGER_BYTES = 1L << 20;

    private long drained;
    private ScheduledFuture<?> timer;

    private LingeringClose() {
    }

    /**
     * Starts a lingering close on the connection of {@code ctx}, whose last answer is
     * {@code answered} (already written through the codec). Called on the event loop.
     */
    static void start(ChannelHandlerContext ctx, ChannelFuture answered) {
        Channel channel = ctx.channel();
        ChannelPipeline pipeline = ctx.pipeline();
        ChannelHandlerContext codec = pipeline.context(HttpServerCodec.class);
        if (codec == null) { // already lingering, or an unexpected pipeline: a plain close
            answered.addListener(f -> channel.close());
            return;
        }
        LingeringClose drain = new LingeringClose();
        pipeline.addAfter(codec.name(), "linger", drain);
        pipeline.remove(codec.handler()); // the codec's unparsed bytes move on to the drain
        channel.config().setAutoRead(true); // drain even if a handler had paused reading
        answered.addListener(f -> {
            if (!f.isSuccess() || !channel.isActive()) {
                channel.close();
                return;
            }
            drain.timer = channel.eventLoop().schedule(() -> channel.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            SslHandler tls = pipeline.get(SslHandler.class);
            if (tls != null) {
                tls.closeOutbound().addListener(sent -> shutdownOutput(channel));
            } else {
                shutdownOutput(channel);
            }
        });
    }

    private static void shutdownOutput(Channel channel) {
        if (!channel.isActive()) {
            return;
        }
        if (channel instanceof DuplexChannel duplex) {
            duplex.shutdownOutput().addListener(f -> {
                if (!f.isSuccess()) {
                    channel.close();
                }
            });
        } else {
            channel.close();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes) {
            drained += bytes.readableBytes();
        }
        ReferenceCountUtil.release(msg);
        if (drained >= LINGER_BYTES) {
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        ctx.fireChannelInactive();
    }

    /** A reset, or a TLS engine that will not read after its close_notify: the linger is over. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
