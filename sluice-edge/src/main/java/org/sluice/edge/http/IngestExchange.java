package org.sluice.edge.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import java.net.InetAddress;

/**
 * One request on its way through the ingest pipeline. Created by {@link RequestSyntaxHandler}
 * when the request line and headers have arrived, filled in by each handler after it, and
 * confined to the channel's event loop until {@link HookHandler} hands the finished hook to
 * its stage (run on that event loop for a small body, on a worker for a big one; after the
 * hand-off only the stage touches it).
 */
final class IngestExchange {

    final HttpRequest request;
    final long startNanos;
    final boolean keepAlive;
    /** The declared {@code Content-Length}, or -1 when there is none (chunked, or no body). */
    final long declaredLength;
    final boolean chunked;

    /** Set by {@link RouteHandler}. */
    SourceRoute source;
    String tenant;
    /** Set by {@link ClientAddressHandler}. */
    InetAddress client;
    /** Set by {@link BodySizeHandler} when a body is on its way: the most body bytes this request may carry. */
    long bodyLimit;
    /** True once every byte of the body has been read (or there is none). */
    boolean bodyRead;
    /**
     * Set by {@link PreReadAdmissionHandler} under {@code http.refused_body: discard} when it
     * refuses a small declared body: the body's bytes are dropped unread as they arrive and
     * the connection stays open. See {@link PreReadAdmissionHandler#SMALL_BODY}.
     */
    boolean dropBody;
    /**
     * Set by {@link PreReadAdmissionHandler} in shadow mode when the declared length did not
     * fit the source's byte bucket: that refusal is counted, so {@link BodyAggregator} does not
     * charge (nor count) the body again once read.
     */
    boolean sourceBytesRefused;

    IngestExchange(HttpRequest request, long startNanos) {
        this.request = request;
        this.startNanos = startNanos;
        this.keepAlive = HttpUtil.isKeepAlive(request);
        this.chunked = HttpUtil.isTransferEncodingChunked(request);
        long length = -1;
        String declared = request.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (declared != null && !chunked) {
            // the decoder refuses most malformed lengths; what it lets through (e.g. one past
            // Long.MAX_VALUE) throws NumberFormatException, which RequestSyntaxHandler answers 400
            length = Long.parseLong(declared.trim());
        }
        this.declaredLength = length;
        this.bodyRead = !chunked && length <= 0;
    }

    /** True when a body is on its way: the connection must close if we answer before reading it. */
    boolean bodyPending() {
        return !bodyRead;
    }

    /** True when answering now means closing: a body is on its way and will not be dropped. */
    boolean mustCloseAfterAnswer() {
        return !bodyRead && !dropBody;
    }
}
