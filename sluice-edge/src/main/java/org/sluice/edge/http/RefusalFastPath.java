package org.sluice.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ByteProcessor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.sluice.core.Clock;
import org.sluice.edge.admission.PreReadLimits;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.config.IpLiterals;
import org.sluice.edge.config.RefusedBody;
import org.sluice.edge.verify.HttpTokens;

/**
 * Pipeline position: first after the {@code SslHandler} (if any), before the HTTP codec; it
 * sees the connection's bytes as they are read. Installed only when {@code rate_limits.per_ip}
 * is set, outside shadow mode, under {@code routing: path}.
 *
 * <p>Concern: refusing a per-address flood at the cost of a table lookup. A refused request
 * needs no request object, no header map, no {@link IngestExchange} and no handler after this one:
 * this handler reads the request's head in place, and when the pipeline would answer it
 * {@code 429 rate_limited, scope ip} and keep the connection, it writes those same bytes
 * ({@link Responses#writeRateLimited}) and skips the request. Every other request goes on to
 * the codec unchanged, and the pipeline decides it as before.
 *
 * <h2>Framing</h2>
 * The handler frames requests as the codec does ({@code Content-Length}, or no body) and hands
 * the codec one request's bytes at a time, so it always knows where the codec stands: between
 * requests once a request's last byte went to it. A head it cannot frame with certainty
 * ({@code Transfer-Encoding}, two lengths, a malformed length, {@code Expect}, {@code Upgrade},
 * a folded or malformed header line, a bare LF, a head over {@code http.max_header_bytes}, a
 * trusted proxy's connection...) turns it into a pass-through for the rest of the connection:
 * the codec then sees every later byte itself, as without this handler. A head that has not
 * all arrived is kept here until it has, but only while the codec would be waiting for more
 * of it too (see {@link #worthWaitingFor}).
 *
 * <h2>When it answers</h2>
 * All of: the pipeline is between requests ({@link InOrderGate#idle}: every earlier answer is
 * written, nothing held), the connection is not closing, the request is
 * {@code POST {prefix}/{source}} for a configured source over HTTP/1.1 kept alive, its
 * headers are ones the pipeline accepts (names are tokens, values hold no control byte), its
 * declared length is within the tenant's body limit, the body (if any, at most
 * {@link PreReadAdmissionHandler#SMALL_BODY}) arrived whole with the head under
 * {@code close_if_incomplete} or {@code discard}, and the client address's bucket would refuse
 * ({@link PreReadLimits#addressWait}, which charges nothing: an admitted request is charged
 * once, by {@link PreReadAdmissionHandler}). Those are exactly the requests that handler
 * answers 429 with the connection kept, having dropped the body; the metrics count them the
 * same way. The answers of one read are gathered in one buffer and flushed once, at the end
 * of the read; the {@link ReadDeadlineHandler} is told that the connection is between
 * requests again ({@link #BETWEEN_REQUESTS}).
 *
 * <p>Event-loop confined: plain fields.
 */
public final class RefusalFastPath extends ChannelInboundHandlerAdapter {

    /** Fired inbound after answers written here: the connection is between requests. */
    static final Object BETWEEN_REQUESTS = new Object() {
        @Override
        public String toString() {
            return "RefusalFastPath.BETWEEN_REQUESTS";
        }
    };

    /** The codec's longest request line ({@code HttpDecoderConfig.setMaxInitialLineLength}). */
    static final int MAX_REQUEST_LINE = 8192;

    /**
     * What every connection's fast path shares: the configuration it decides with.
     *
     * @param paths the ingest paths, read with an indexed loop (no iterator per request)
     */
    public record Shared(PreReadLimits limits, Clock clock, RefusedBody refusedBody, IngestMetrics metrics,
                         ToLongFunction<String> bodyLimitForTenant, Predicate<InetAddress> trustedProxy,
                         List<Router.IngestPath> paths, int maxHeaderBytes) {

        public Shared {
            paths = List.copyOf(paths);
        }

        public Shared(PreReadLimits limits, Clock clock, RefusedBody refusedBody, IngestMetrics metrics,
                ToLongFunction<String> bodyLimitForTenant, Predicate<InetAddress> trustedProxy, Router router,
                int maxHeaderBytes) {
            this(limits, clock, refusedBody, metrics, bodyLimitForTenant, trustedProxy, router.ingestPaths(), maxHeaderBytes);
        }
    }

    private final Shared shared;
    private final InOrderGate gate;

    /** False once the connection is a pass-through (see the class comment). */
    private boolean framing = true;
    /** The client address (the peer, normalised), found at the first read. */
    private InetAddress client;
    /** Body bytes of the request being handed to the codec that have still to go to it. */
    private long toCodec;
    /** A head that has not all arrived yet, or null. */
    private ByteBuf partial;
    /** The answers of this read, not yet written, or null. */
    private ByteBuf answers;
    /** Answers were written since the last flush. */
    private boolean unflushed;

    // what parseHead found
    private int headLength;
    private long contentLength;
    private boolean refusable;
    private Router.IngestPath target;

    public RefusalFastPath(Shared shared, InOrderGate gate) {
        this.shared = shared;
        this.gate = gate;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!framing || !(msg instanceof ByteBuf bytes)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (client == null && !findClient(ctx)) {
            passThrough(ctx, bytes);
            return;
        }
        ByteBuf in = bytes;
        if (partial != null) {
            in = partial.writeBytes(bytes);
            bytes.release();
            partial = null;
        }
        try {
            frame(ctx, in);
        } finally {
            writeAnswers(ctx);
            if (partial == null) {
                in.release();
            }
        }
    }

    private void frame(ChannelHandlerContext ctx, ByteBuf in) {
        while (in.isReadable()) {
            if (closing(ctx)) {
                writeAnswers(ctx);
                framing = false;
                ctx.fireChannelRead(in.readRetainedSlice(in.readableBytes()));
                return;
            }
            if (toCodec > 0) {
                int n = (int) Math.min(in.readableBytes(), toCodec);
                toCodec -= n;
                ctx.fireChannelRead(in.readRetainedSlice(n));
                continue;
            }
            int parsed = parseHead(in);
            if (parsed == NEED_MORE) {
                if (!worthWaitingFor(in)) {
                    writeAnswers(ctx); // the codec may answer these bytes already: let it
                    framing = false;
                    ctx.fireChannelRead(in.readRetainedSlice(in.readableBytes()));
                    return;
                }
                partial = ctx.alloc().buffer(in.readableBytes() + 512).writeBytes(in);
                in.release();
                return;
            }
            if (parsed == UNSURE) {
                writeAnswers(ctx);
                framing = false;
                ctx.fireChannelRead(in.readRetainedSlice(in.readableBytes()));
                return;
            }
            long whole = headLength + contentLength;
            if (refusable && whole <= in.readableBytes() && gate.idle() && refuse(ctx)) {
                in.skipBytes((int) whole);
                continue;
            }
            writeAnswers(ctx); // answers leave in request order
            int now = (int) Math.min(in.readableBytes(), whole);
            toCodec = whole - now;
            ctx.fireChannelRead(in.readRetainedSlice(now));
        }
    }

    /**
     * A head that has not all arrived is kept here only while it could still be one this
     * handler answers and the codec, given the same bytes, would still be waiting too: it
     * starts with an upper-case letter, holds no control byte but tab, CR and LF, and is no
     * longer than the codec's request line or header limit. Otherwise the codec gets the bytes
     * now and answers them as without this handler (before, a request line with a NUL and no
     * LF yet was kept here until the read deadline closed the connection silently, where the
     * codec answers {@code 400} at once).
     */
    private boolean worthWaitingFor(ByteBuf in) {
        int from = in.readerIndex();
        int to = in.writerIndex();
        if (to - from > Math.min(MAX_REQUEST_LINE, shared.maxHeaderBytes) || !isUpperLetter(in.getByte(from))) {
            return false;
        }
        for (int i = from; i < to; i++) {
            int c = in.getByte(i) & 0xff;
            if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) {
                return false;
            }
        }
        return true;
    }

    /** The client address's bucket would refuse: answer as the pipeline would. */
    private boolean refuse(ChannelHandlerContext ctx) {
        long now = shared.clock.nanoTime();
        long wait = shared.limits.addressWait(client, now);
        if (wait == 0) {
            return false; // admitted: the pipeline charges it
        }
        shared.metrics.refused(RefusalScope.IP);
        if (answers == null) {
            answers = ctx.alloc().ioBuffer(256);
        }
        Responses.writeRateLimited(answers, RefusalScope.IP, wait);
        shared.metrics.answered(IngestOutcome.RATE_LIMITED, now);
        return true;
    }

    private void writeAnswers(ChannelHandlerContext ctx) {
        if (answers != null) {
            ByteBuf out = answers;
            answers = null;
            ctx.write(out, ctx.voidPromise());
            unflushed = true;
            ctx.fireUserEventTriggered(BETWEEN_REQUESTS);
        }
    }

    /** One flush for every answer of the read. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (unflushed) {
            unflushed = false;
            ctx.flush();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (partial != null) {
            partial.release();
            partial = null;
        }
        if (answers != null) {
            answers.release();
            answers = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        handlerRemoved(ctx);
        ctx.fireChannelInactive();
    }

    private void passThrough(ChannelHandlerContext ctx, ByteBuf bytes) {
        framing = false;
        ctx.fireChannelRead(bytes);
    }

    private static boolean closing(ChannelHandlerContext ctx) {
        return ctx.channel().hasAttr(ResponseWriter.CLOSING)
                && Boolean.TRUE.equals(ctx.channel().attr(ResponseWriter.CLOSING).get());
    }

    /** The peer as {@link ClientAddressHandler} finds it; false when that handler would look further. */
    private boolean findClient(ChannelHandlerContext ctx) {
        SocketAddress remote = ctx.channel().remoteAddress();
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return false;
        }
        InetAddress peer = IpLiterals.unmap(inet.getAddress());
        if (shared.trustedProxy.test(peer)) {
            return false; // the client may be named in X-Forwarded-For: the pipeline reads it
        }
        client = peer;
        return true;
    }

    // ================================================================ reading a head in place

    private static final int OK = 0;
    private static final int NEED_MORE = 1;
    private static final int UNSURE = 2;

    private static final byte[] POST_SP = {'P', 'O', 'S', 'T', ' '};
    private static final byte[] HTTP_1_1 = {'H', 'T', 'T', 'P', '/', '1', '.', '1'};
    private static final byte[] HTTP_1_ = {'H', 'T', 'T', 'P', '/', '1', '.'};
    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] EXPECT = ascii("expect");
    private static final byte[] UPGRADE = ascii("upgrade");
    private static final byte[] CLOSE = ascii("close");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");

    /**
     * Reads the head at {@code in}'s reader index without moving it: {@link #NEED_MORE} when
     * it has not all arrived, {@link #UNSURE} when it cannot be framed for certain, else
     * {@link #OK} with {@link #headLength}, {@link #contentLength}, {@link #refusable} and
     * {@link #target} set.
     */
    private int parseHead(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        int lineEnd = in.forEachByte(start, end - start, ByteProcessor.FIND_LF);
        if (lineEnd < 0) {
            return NEED_MORE;
        }
        // the request line: METHOD SP target SP HTTP/1.x CRLF
        if (lineEnd - start > MAX_REQUEST_LINE || lineEnd == start || in.getByte(lineEnd - 1) != '\r'
                || !isUpperLetter(in.getByte(start))) {
            return UNSURE;
        }
        int firstSp = in.forEachByte(start, lineEnd - start, ByteProcessor.FIND_ASCII_SPACE);
        int secondSp = firstSp < 0 ? -1 : in.forEachByte(firstSp + 1, lineEnd - firstSp - 1, ByteProcessor.FIND_ASCII_SPACE);
        if (secondSp < 0 || secondSp == firstSp + 1 || lineEnd - 1 - (secondSp + 1) != HTTP_1_1.length
                || !regionEquals(in, secondSp + 1, HTTP_1_, false) || !isDigit(in.getByte(secondSp + 8))
                || !isToken(in, start, firstSp) || hasControlOrSpace(in, firstSp + 1, secondSp)) {
            return UNSURE;
        }
        boolean candidate = regionEquals(in, start, POST_SP, false) && firstSp == start + 4
                && regionEquals(in, secondSp + 1, HTTP_1_1, false);
        Router.IngestPath path = candidate ? ingestPath(in, firstSp + 1, secondSp) : null;
        candidate = path != null;

        long length = -1;
        boolean keepAlive = true;
        int headerBytes = 0;
        int line = lineEnd + 1;
        while (true) {
            int lf = in.forEachByte(line, end - line, ByteProcessor.FIND_LF);
            if (lf < 0) {
                return NEED_MORE;
            }
            headerBytes += lf + 1 - line;
            if (headerBytes > shared.maxHeaderBytes) {
                return UNSURE;
            }
            if (lf == line || in.getByte(lf - 1) != '\r') {
                return UNSURE; // a bare LF
            }
            if (lf == line + 1) {
                break; // the empty line: the head ends here
            }
            int colon = in.forEachByte(line, lf - line, ByteProcessor.FIND_NON_LINEAR_WHITESPACE) != line ? -1
                    : in.indexOf(line, lf, (byte) ':');
            if (colon <= line || !isToken(in, line, colon)) {
                return UNSURE; // folded, empty name, or a name that is not a token
            }
            int valueStart = colon + 1;
            int valueEnd = lf - 1;
            while (valueStart < valueEnd && isLinearSpace(in.getByte(valueStart))) {
                valueStart++;
            }
            while (valueEnd > valueStart && isLinearSpace(in.getByte(valueEnd - 1))) {
                valueEnd--;
            }
            if (!isFieldValue(in, valueStart, valueEnd)) {
                return UNSURE;
            }
            int nameLength = colon - line;
            if (nameMatches(in, line, nameLength, CONTENT_LENGTH)) {
                if (length >= 0 || valueEnd == valueStart || valueEnd - valueStart > 18) {
                    return UNSURE;
                }
                length = 0;
                for (int i = valueStart; i < valueEnd; i++) {
                    byte b = in.getByte(i);
                    if (!isDigit(b)) {
                        return UNSURE;
                    }
                    length = length * 10 + (b - '0');
                }
            } else if (nameMatches(in, line, nameLength, TRANSFER_ENCODING) || nameMatches(in, line, nameLength, EXPECT)
                    || nameMatches(in, line, nameLength, UPGRADE)) {
                return UNSURE;
            } else if (nameMatches(in, line, nameLength, CONNECTION)) {
                // only the plain forms are decided here; anything else is the pipeline's to read
                if (valueEnd - valueStart == CLOSE.length && regionEquals(in, valueStart, CLOSE, true)) {
                    keepAlive = false;
                } else if (!(valueEnd - valueStart == KEEP_ALIVE.length && regionEquals(in, valueStart, KEEP_ALIVE, true))) {
                    candidate = false;
                }
            }
            line = lf + 1;
        }
        headLength = line + 2 - start;
        contentLength = Math.max(0, length);
        target = path;
        refusable = candidate && keepAlive && bodyMayBeDropped();
        return OK;
    }

    /** The declared body is within the tenant's limit, and a refusal would drop it and keep the connection. */
    private boolean bodyMayBeDropped() {
        if (contentLength == 0) {
            return true;
        }
        return contentLength <= PreReadAdmissionHandler.SMALL_BODY
                && contentLength <= shared.bodyLimitForTenant.applyAsLong(target.tenant())
                && (shared.refusedBody == RefusedBody.CLOSE_IF_INCOMPLETE || shared.refusedBody == RefusedBody.DISCARD);
    }

    /** The source whose path is exactly the request target's path (its query left out), or null. */
    private Router.IngestPath ingestPath(ByteBuf in, int from, int to) {
        int query = in.indexOf(from, to, (byte) '?');
        int pathEnd = query < 0 ? to : query;
        List<Router.IngestPath> paths = shared.paths;
        for (int i = 0; i < paths.size(); i++) { // indexed: no iterator per request
            Router.IngestPath p = paths.get(i);
            if (p.path().length == pathEnd - from && regionEquals(in, from, p.path(), false)) {
                return p;
            }
        }
        return null;
    }

    private static boolean regionEquals(ByteBuf in, int at, byte[] expected, boolean ignoreCase) {
        if (at + expected.length > in.writerIndex()) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            byte b = in.getByte(at + i);
            if (ignoreCase && b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean nameMatches(ByteBuf in, int at, int length, byte[] lowerName) {
        return length == lowerName.length && regionEquals(in, at, lowerName, true);
    }

    /** RFC 9110 token ({@link HttpTokens}), as {@link RequestSyntaxHandler} checks a header name. */
    private static boolean isToken(ByteBuf in, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (!HttpTokens.isTchar(in.getByte(i))) {
                return false;
            }
        }
        return true;
    }

    /** No control byte but tab ({@link HttpTokens#isFieldValueByte}), as {@link RequestSyntaxHandler} checks a header value. */
    private static boolean isFieldValue(ByteBuf in, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!HttpTokens.isFieldValueByte(in.getByte(i) & 0xff)) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasControlOrSpace(ByteBuf in, int from, int to) {
        if (from >= to) {
            return true;
        }
        for (int i = from; i < to; i++) {
            int c = in.getByte(i) & 0xff;
            if (c <= 0x20 || c == 0x7f) {
                return true;
            }
        }
        return false;
    }

    private static boolean isUpperLetter(byte b) {
        return b >= 'A' && b <= 'Z';
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static boolean isLinearSpace(byte b) {
        return b == ' ' || b == '\t';
    }

    private static byte[] ascii(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
