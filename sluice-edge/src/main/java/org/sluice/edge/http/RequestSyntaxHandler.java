package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.util.ReferenceCountUtil;
import java.util.Iterator;
import java.util.Map;
import org.sluice.core.Clock;
import org.sluice.edge.verify.HttpTokens;

/**
 * Pipeline position: after the HTTP codec, {@link InOrderGate} and {@link ReadDeadlineHandler};
 * the first handler that looks inside a decoded request.
 *
 * <p>Concern: is the request well-formed? A request the codec could not decode is answered
 * 431 when its header block passed {@code http.max_header_bytes}, else 400; a header name
 * that is not an RFC 9110 token, or a value holding a control byte other than tab, is
 * answered {@code 400 {"error":"invalid_header","header":"<name>"}} and the connection ends
 * after it ({@link ResponseWriter#sendAndEnd}: the request's framing cannot be trusted, so
 * nothing after its head is parsed as another request). The codec's own header
 * validation is off so that this handler can name the header. A well-formed request
 * becomes an {@link IngestExchange} for the handlers after it; body chunks pass through.
 */
@ChannelHandler.Sharable
public final class RequestSyntaxHandler extends ChannelInboundHandlerAdapter {

    private final Clock clock;
    private final IngestMetrics metrics;

    public RequestSyntaxHandler(Clock clock, IngestMetrics metrics) {
        this.clock = clock;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpRequest request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg); // a DefaultHttpRequest holds no buffer; a full one might
        IngestExchange exchange;
        DecoderResult result = request.decoderResult();
        if (result.isFailure()) {
            // The codec discards the rest of the connection after a failure: answer and close.
            boolean tooLarge = result.cause() instanceof TooLongHttpHeaderException;
            ResponseWriter.send(ctx, null, tooLarge ? Responses.headersTooLarge() : Responses.badRequest(), IngestOutcome.BAD_REQUEST,
                    metrics);
            return;
        }
        try {
            exchange = new IngestExchange(request, clock.nanoTime());
        } catch (NumberFormatException e) {
            ResponseWriter.send(ctx, null, Responses.badRequest(), IngestOutcome.BAD_REQUEST, metrics);
            return;
        }
        String bad = invalidHeader(request);
        if (bad != null) {
            // whichever header it is, a proxy in front may have framed the request by it: end the connection
            ResponseWriter.sendAndEnd(ctx, exchange, Responses.invalidHeader(bad), IngestOutcome.BAD_REQUEST, metrics);
            return;
        }
        ctx.fireChannelRead(exchange);
    }

    /** The name of the first header with an invalid byte in its name or value, or null. */
    static String invalidHeader(HttpRequest request) {
        Iterator<Map.Entry<CharSequence, CharSequence>> it = request.headers().iteratorCharSequence();
        while (it.hasNext()) {
            Map.Entry<CharSequence, CharSequence> header = it.next();
            CharSequence name = header.getKey();
            if (!HttpTokens.isToken(name) || !isFieldValue(header.getValue())) {
                return name.toString();
            }
        }
        return null;
    }

    /** Every character a field value may hold ({@link HttpTokens#isFieldValueByte}). */
    private static boolean isFieldValue(CharSequence value) {
        for (int i = 0; i < value.length(); i++) {
            if (!HttpTokens.isFieldValueByte(value.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
