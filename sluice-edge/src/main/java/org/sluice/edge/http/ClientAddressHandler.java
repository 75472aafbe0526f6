package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.function.Predicate;

/**
 * Pipeline position: after {@link RouteHandler}, before {@link BodySizeHandler}.
 *
 * <p>Concern: who is the client? The peer, or behind a trusted proxy the address
 * {@link ForwardedFor} finds in {@code X-Forwarded-For}; an unreadable entry at or right of
 * the client is {@code 400 {"error":"invalid_forwarded_for"}}.
 */
@ChannelHandler.Sharable
public final class ClientAddressHandler extends ExchangeHandler {

    private static final String X_FORWARDED_FOR = "X-Forwarded-For";

    private final Predicate<InetAddress> trustedProxy;

    public ClientAddressHandler(Predicate<InetAddress> trustedProxy, IngestMetrics metrics) {
        super(metrics);
        this.trustedProxy = trustedProxy;
    }

    @Override
    void read(ChannelHandlerContext ctx, IngestExchange exchange) {
        SocketAddress remote = ctx.channel().remoteAddress();
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            answer(ctx, exchange, Responses.badRequest(), IngestOutcome.BAD_REQUEST);
            return;
        }
        List<String> lines = exchange.request.headers().getAll(X_FORWARDED_FOR);
        ForwardedFor.Result result = ForwardedFor.resolve(inet.getAddress(), lines, trustedProxy);
        if (result.invalid()) {
            answer(ctx, exchange, Responses.invalidForwardedFor(), IngestOutcome.BAD_REQUEST);
            return;
        }
        exchange.client = result.client();
        ctx.fireChannelRead(exchange);
    }
}
