package org.sluice.edge.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundInvoker;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Where the request being read on one connection stands, as the HTTP codec's messages tell
 * it, and what a read deadline that fires owes the client. Both listeners keep one per
 * connection: the hook listener's {@link ReadDeadlineHandler} and the admin listener's
 * deadlines ({@code server.AdminDeadlines}). Each decides for itself when its deadlines run;
 * this class only follows the request.
 * <pre>
 *   between ──head read──► reading ──read whole──► between       (answered after, as usual)
 *                            │
 *                            └─final answer written──► answered early ──read whole──► between
 * </pre>
 * A final answer written while the request is still being read (a {@code 413} while its
 * body is dropped) makes it <b>answered early</b>. A deadline that fires while the request is
 * being read and not answered yet owes a {@code 408}; at any other time the connection is
 * closed silently. A {@code 100 Continue} is not an answer.
 *
 * <p>Confined to the connection's event loop, like the handlers that keep it.
 */
public final class RequestProgress {

    /** What a message read from the codec did to the request. */
    public enum Read {
        /** Neither a request's head nor its end. */
        NOTHING,
        /** A request's head: the request is being read. */
        BEGUN,
        /** The request's end, not answered yet: the server works on it now. */
        WHOLE,
        /** The end of a request answered early (its body was being dropped): the connection is between requests. */
        WHOLE_ANSWERED
    }

    /** What a message written to the client was. */
    public enum Write {
        /** Not a response. */
        NOTHING,
        /** A {@code 100 Continue}: the client sends the body from now on. */
        CONTINUE,
        /** A final answer to a request still being read (answered early). */
        MID_REQUEST,
        /** A final answer with no request being read: the answer to a request read whole. */
        BETWEEN_REQUESTS
    }

    /** The current request's head has arrived and its end not yet. */
    private boolean reading;
    /** The current request has its final answer while still being read. */
    private boolean answeredEarly;

    /** Follows a message read from the codec (a {@code FullHttpRequest} is a head and an end at once). */
    public Read read(Object msg) {
        Read step = Read.NOTHING;
        if (msg instanceof HttpRequest) {
            reading = true;
            answeredEarly = false;
            step = Read.BEGUN;
        }
        if (msg instanceof LastHttpContent) {
            reading = false;
            step = answeredEarly ? Read.WHOLE_ANSWERED : Read.WHOLE;
            answeredEarly = false;
        }
        return step;
    }

    /** Follows a message written towards the client (only while the channel is open). */
    public Write wrote(Object msg) {
        if (!(msg instanceof HttpResponse response)) {
            return Write.NOTHING;
        }
        if (response.status().code() == HttpResponseStatus.CONTINUE.code()) {
            return Write.CONTINUE;
        }
        if (reading) {
            answeredEarly = true;
            return Write.MID_REQUEST;
        }
        return Write.BETWEEN_REQUESTS;
    }

    /** Whole requests were answered outside the codec's view: the connection is between requests. */
    public void between() {
        reading = false;
        answeredEarly = false;
    }

    /** A read deadline firing now owes the client a {@code 408}: a request is being read and has no answer. */
    public boolean owesTimeout() {
        return reading && !answeredEarly;
    }

    /**
     * Ends the connection for a read deadline: a {@code 408} with {@code Connection: close} and
     * the close once it is written when {@code owed}, else a silent close. {@code out} is the
     * channel (the whole pipeline) or a handler's context (the handlers before it).
     */
    public static void timeOut(ChannelOutboundInvoker out, boolean owed) {
        if (owed) {
            FullHttpResponse response = Responses.requestTimeout();
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            out.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            out.close();
        }
    }
}
