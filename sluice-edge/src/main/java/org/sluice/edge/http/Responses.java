package org.sluice.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.sluice.edge.admission.Refusal;
import org.sluice.edge.admission.RefusalScope;

/**
 * Every response body the ingest listener sends, and the admin listener's few fixed ones;
 * the interim {@code 100 Continue} ({@link ContinueHandler}) has no body and is built there.
 * Fixed bodies are encoded once into unreleasable
 * buffers and shared (each response gets its own duplicate, so writers never touch the
 * original's indexes); bodies that carry a number or an id are built per response.
 *
 * <p>Every 429 and 503 carries {@code Retry-After} in whole seconds, {@code ceil(ms/1000)}
 * and at least 1, and {@code retry_after_ms} in its body when the wait is known.
 */
public final class Responses {

    static final HttpResponseStatus TOO_MANY_REQUESTS = HttpResponseStatus.TOO_MANY_REQUESTS;
    static final HttpResponseStatus HEADERS_TOO_LARGE = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;

    private static final ByteBuf NOT_FOUND = fixed("{\"error\":\"not_found\"}");
    private static final ByteBuf UNKNOWN_SOURCE = fixed("{\"error\":\"unknown_source\"}");
    private static final ByteBuf OK_STATUS = fixed("{\"status\":\"ok\"}");
    private static final ByteBuf OVERLOAD = fixed("{\"error\":\"overload\"}");
    private static final ByteBuf STORE_UNAVAILABLE = fixed("{\"error\":\"store_unavailable\"}");
    private static final ByteBuf STORE_FULL = fixed("{\"error\":\"store_full\"}");
    /** {@code Retry-After} of {@code store_full}: the retention pass runs every second, and frees space in batches. */
    static final int STORE_FULL_RETRY_AFTER_SECONDS = 5;
    private static final ByteBuf INVALID_FORWARDED_FOR = fixed("{\"error\":\"invalid_forwarded_for\"}");
    private static final ByteBuf HEADERS_TOO_LARGE_BODY = fixed("{\"error\":\"headers_too_large\"}");
    private static final ByteBuf BAD_REQUEST = fixed("{\"error\":\"bad_request\"}");
    private static final ByteBuf REQUEST_TIMEOUT = fixed("{\"error\":\"request_timeout\"}");
    private static final ByteBuf EXPECTATION_FAILED = fixed("{\"error\":\"expectation_failed\"}");

    private Responses() {
    }

    // ---------------------------------------------------------------- fixed

    public static FullHttpResponse notFound() {
        return of(HttpResponseStatus.NOT_FOUND, NOT_FOUND);
    }

    static FullHttpResponse unknownSource() {
        return of(HttpResponseStatus.NOT_FOUND, UNKNOWN_SOURCE);
    }

    static FullHttpResponse healthy() {
        return of(HttpResponseStatus.OK, OK_STATUS);
    }

    /** {@code 200 {"status":"ok"}} when {@code notReadyReason} is null, else {@code 503 {"status":"unavailable","reason":..}}. */
    static FullHttpResponse ready(String notReadyReason) {
        if (notReadyReason == null) {
            return of(HttpResponseStatus.OK, OK_STATUS);
        }
        FullHttpResponse response = of(HttpResponseStatus.SERVICE_UNAVAILABLE,
                "{\"status\":\"unavailable\",\"reason\":" + Json.string(notReadyReason) + "}");
        response.headers().set(HttpHeaderNames.RETRY_AFTER, 1);
        return response;
    }

    public static FullHttpResponse overload() {
        return retryable(HttpResponseStatus.SERVICE_UNAVAILABLE, OVERLOAD);
    }

    static FullHttpResponse storeUnavailable() {
        return retryable(HttpResponseStatus.SERVICE_UNAVAILABLE, STORE_UNAVAILABLE);
    }

    /** {@code 503 {"error":"store_full"}}: the store is at {@code store.max_bytes}; retention frees space. */
    static FullHttpResponse storeFull() {
        FullHttpResponse response = of(HttpResponseStatus.SERVICE_UNAVAILABLE, STORE_FULL);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, STORE_FULL_RETRY_AFTER_SECONDS);
        return response;
    }

    static FullHttpResponse invalidForwardedFor() {
        return of(HttpResponseStatus.BAD_REQUEST, INVALID_FORWARDED_FOR);
    }

    static FullHttpResponse headersTooLarge() {
        return of(HEADERS_TOO_LARGE, HEADERS_TOO_LARGE_BODY);
    }

    static FullHttpResponse badRequest() {
        return of(HttpResponseStatus.BAD_REQUEST, BAD_REQUEST);
    }

    public static FullHttpResponse requestTimeout() {
        return of(HttpResponseStatus.REQUEST_TIMEOUT, REQUEST_TIMEOUT);
    }

    static FullHttpResponse expectationFailed() {
        return of(HttpResponseStatus.EXPECTATION_FAILED, EXPECTATION_FAILED);
    }

    // ---------------------------------------------------------------- built per response

    /**
     * The answer to a refusal: {@code 429 tenant_overload} for the tenant's queue share,
     * {@code 503 overload} for the node's queue, else {@code 429 rate_limited} with the scope.
     */
    static FullHttpResponse refused(Refusal refusal) {
        return refused(refusal.scope(), refusal.waitNanos());
    }

    /** As {@link #refused(Refusal)}, for a refusal known by its parts (the event loops allocate no record). */
    static FullHttpResponse refused(RefusalScope scope, long waitNanos) {
        return switch (scope) {
            case TENANT_OVERLOAD -> tenantOverload(retryAfterMs(waitNanos));
            case OVERLOAD -> overload();
            case IP, NODE, SOURCE, TENANT, TENANT_BYTES, TENANT_STORAGE -> rateLimited(scope.label, waitNanos);
        };
    }

    // ---------------------------------------------------------------- written as bytes

    /** {@code "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: "}. */
    private static final byte[] RATE_LIMITED_HEAD = ascii("HTTP/1.1 429 Too Many Requests\r\n"
            + HttpHeaderNames.CONTENT_TYPE + ": " + HttpHeaderValues.APPLICATION_JSON + "\r\n"
            + HttpHeaderNames.CONTENT_LENGTH + ": ");
    private static final byte[] RETRY_AFTER = ascii("\r\n" + HttpHeaderNames.RETRY_AFTER + ": ");
    private static final byte[] END_OF_HEADERS = ascii("\r\n\r\n");
    /** {@code {"error":"rate_limited","scope":"<scope>","retry_after_ms":}, by scope ordinal. */
    private static final byte[][] RATE_LIMITED_BODY = new byte[RefusalScope.values().length][];

    static {
        for (RefusalScope scope : RefusalScope.values()) {
            RATE_LIMITED_BODY[scope.ordinal()] =
                    ascii("{\"error\":\"rate_limited\",\"scope\":\"" + scope.label + "\",\"retry_after_ms\":");
        }
    }

    /**
     * Writes into {@code out} the bytes the HTTP/1.1 encoder writes for
     * {@code refused(scope, waitNanos)} of a {@code rate_limited} scope on a connection kept
     * alive: the same status line, headers in the same order, and body. No object is built:
     * the fixed parts are copied and the three numbers written as digits. For the refusal
     * fast path ({@link RefusalFastPath}), which answers without the codec;
     * {@code ResponsesTest} holds the two forms byte for byte equal.
     */
    static void writeRateLimited(ByteBuf out, RefusalScope scope, long waitNanos) {
        long ms = retryAfterMs(waitNanos);
        byte[] body = RATE_LIMITED_BODY[scope.ordinal()];
        out.writeBytes(RATE_LIMITED_HEAD);
        writeDecimal(out, body.length + digits(ms) + 1);
        out.writeBytes(RETRY_AFTER);
        writeDecimal(out, retryAfterSeconds(ms));
        out.writeBytes(END_OF_HEADERS);
        out.writeBytes(body);
        writeDecimal(out, ms);
        out.writeByte('}');
    }

    /** The decimal digits of {@code value} (not negative), no allocation. */
    private static void writeDecimal(ByteBuf out, long value) {
        int n = digits(value);
        int at = out.writerIndex();
        out.ensureWritable(n);
        for (int i = n - 1; i >= 0; i--) {
            out.setByte(at + i, (int) ('0' + value % 10));
            value /= 10;
        }
        out.writerIndex(at + n);
    }

    private static int digits(long value) {
        int n = 1;
        while (value >= 10) {
            value /= 10;
            n++;
        }
        return n;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code 409 {"error":"dedupe_pending","retry_after_ms":N}}: the fleet holds a claim on the key. */
    static FullHttpResponse dedupePending(long retryAfterMs) {
        long ms = Math.max(1L, retryAfterMs);
        FullHttpResponse response = of(HttpResponseStatus.CONFLICT,
                "{\"error\":\"dedupe_pending\",\"retry_after_ms\":" + ms + "}");
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds(ms));
        return response;
    }

    /** {@code 429 {"error":"rate_limited","scope":..,"retry_after_ms":N}}. */
    private static FullHttpResponse rateLimited(String scope, long waitNanos) {
        long ms = retryAfterMs(waitNanos);
        FullHttpResponse response = of(TOO_MANY_REQUESTS,
                "{\"error\":\"rate_limited\",\"scope\":\"" + scope + "\",\"retry_after_ms\":" + ms + "}");
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds(ms));
        return response;
    }

    /** {@code 429 {"error":"tenant_overload","retry_after_ms":N}}. */
    private static FullHttpResponse tenantOverload(long retryAfterMs) {
        long ms = Math.max(1L, retryAfterMs);
        FullHttpResponse response = of(TOO_MANY_REQUESTS, "{\"error\":\"tenant_overload\",\"retry_after_ms\":" + ms + "}");
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds(ms));
        return response;
    }

    /** {@code 413 {"error":"payload_too_large","limit":N}}. */
    static FullHttpResponse payloadTooLarge(long limit) {
        return of(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "{\"error\":\"payload_too_large\",\"limit\":" + limit + "}");
    }

    /** {@code 400 {"error":"invalid_header","header":"<name>"}}; the name is escaped. */
    static FullHttpResponse invalidHeader(String name) {
        return of(HttpResponseStatus.BAD_REQUEST, "{\"error\":\"invalid_header\",\"header\":" + Json.string(name) + "}");
    }

    /** {@code 401 {"error":"verification_failed","reason":..}}. */
    static FullHttpResponse verificationFailed(String reason) {
        return of(HttpResponseStatus.UNAUTHORIZED, "{\"error\":\"verification_failed\",\"reason\":\"" + reason + "\"}");
    }

    private static final byte[] ACCEPTED_HEAD = "{\"status\":\"accepted\",\"id\":\"".getBytes(StandardCharsets.US_ASCII);

    /**
     * {@code 202 {"status":"accepted","id":..}}. An id that needs no escaping (every id the
     * store hands out) is written straight into the body's array: the accept path's answer
     * without the string building of the other answers.
     */
    static FullHttpResponse accepted(String id) {
        if (!needsNoEscape(id)) {
            return of(HttpResponseStatus.ACCEPTED, "{\"status\":\"accepted\",\"id\":" + Json.string(id) + "}");
        }
        byte[] json = new byte[ACCEPTED_HEAD.length + id.length() + 2];
        System.arraycopy(ACCEPTED_HEAD, 0, json, 0, ACCEPTED_HEAD.length);
        for (int i = 0; i < id.length(); i++) {
            json[ACCEPTED_HEAD.length + i] = (byte) id.charAt(i);
        }
        json[json.length - 2] = '"';
        json[json.length - 1] = '}';
        return withBody(HttpResponseStatus.ACCEPTED, Unpooled.wrappedBuffer(json));
    }

    /** Printable ASCII without quote or backslash: what {@link Json#string} writes unchanged. */
    private static boolean needsNoEscape(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    /** {@code 200 {"status":"duplicate","id":..}}. */
    static FullHttpResponse duplicate(String id) {
        return of(HttpResponseStatus.OK, "{\"status\":\"duplicate\",\"id\":" + Json.string(id) + "}");
    }

    // ---------------------------------------------------------------- arithmetic

    /** A wait in nanoseconds as whole milliseconds, rounded up, at least 1. */
    static long retryAfterMs(long waitNanos) {
        long ms = waitNanos / 1_000_000L + (waitNanos % 1_000_000L > 0 ? 1 : 0);
        return Math.max(1L, ms);
    }

    /** {@code ceil(ms / 1000)}, at least 1. */
    static long retryAfterSeconds(long ms) {
        return Math.max(1L, (ms + 999L) / 1000L);
    }

    // ---------------------------------------------------------------- plumbing

    private static ByteBuf fixed(String json) {
        return Unpooled.unreleasableBuffer(Unpooled.directBuffer(json.length())
                .writeBytes(json.getBytes(StandardCharsets.UTF_8)).asReadOnly());
    }

    private static FullHttpResponse retryable(HttpResponseStatus status, ByteBuf body) {
        FullHttpResponse response = of(status, body);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, 1);
        return response;
    }

    private static FullHttpResponse of(HttpResponseStatus status, ByteBuf shared) {
        return withBody(status, shared.duplicate());
    }

    private static FullHttpResponse of(HttpResponseStatus status, String json) {
        return withBody(status, Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
    }

    private static FullHttpResponse withBody(HttpResponseStatus status, ByteBuf body) {
        // no trailers on an answer: the empty set instead of a second header map per response
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body,
                new DefaultHttpHeaders(), EmptyHttpHeaders.INSTANCE);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return response;
    }
}
