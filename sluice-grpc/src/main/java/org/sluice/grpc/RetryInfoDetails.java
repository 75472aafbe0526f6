package org.sluice.grpc;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code grpc-status-details-bin} trailer of a refusal: a {@code google.rpc.Status}
 * carrying one {@code google.rpc.RetryInfo}, written as protobuf bytes by hand so that the
 * module needs no protobuf runtime. A client reads it with grpc-protobuf's {@code
 * StatusProto.fromThrowable(e)} and {@code detail.unpack(RetryInfo.class)}. The messages,
 * with their field numbers:
 * <pre>
 *   google.rpc.Status         { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }
 *   google.protobuf.Any       { string type_url = 1; bytes value = 2; }
 *   google.rpc.RetryInfo      { google.protobuf.Duration retry_delay = 1; }
 *   google.protobuf.Duration  { int64 seconds = 1; int32 nanos = 2; }
 * </pre>
 * A field is a tag ({@code number << 3 | wire type}; 0 varint, 2 length-delimited) then its
 * value; fields at their default (0, empty) are left out, as protobuf does.
 */
final class RetryInfoDetails {

    private static final String RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";
    private static final int VARINT = 0;
    private static final int LENGTH_DELIMITED = 2;

    private RetryInfoDetails() {
    }

    /** A {@code google.rpc.Status} of {@code code} and {@code message} whose one detail asks for a wait of {@code waitNanos}. */
    static byte[] status(int code, String message, long waitNanos) {
        ByteArrayOutputStream duration = new ByteArrayOutputStream();
        varintField(duration, 1, waitNanos / 1_000_000_000L);
        varintField(duration, 2, waitNanos % 1_000_000_000L);
        ByteArrayOutputStream retryInfo = new ByteArrayOutputStream();
        bytesField(retryInfo, 1, duration.toByteArray());
        ByteArrayOutputStream any = new ByteArrayOutputStream();
        bytesField(any, 1, RETRY_INFO_TYPE.getBytes(StandardCharsets.UTF_8));
        bytesField(any, 2, retryInfo.toByteArray());
        ByteArrayOutputStream status = new ByteArrayOutputStream();
        varintField(status, 1, code);
        bytesField(status, 2, message.getBytes(StandardCharsets.UTF_8));
        bytesField(status, 3, any.toByteArray());
        return status.toByteArray();
    }

    private static void varintField(ByteArrayOutputStream out, int number, long value) {
        if (value != 0) {
            varint(out, (long) number << 3 | VARINT);
            varint(out, value);
        }
    }

    private static void bytesField(ByteArrayOutputStream out, int number, byte[] value) {
        if (value.length > 0) {
            varint(out, (long) number << 3 | LENGTH_DELIMITED);
            varint(out, value.length);
            out.write(value, 0, value.length);
        }
    }

    /** Seven bits a byte, least significant first, the high bit set on every byte but the last. */
    private static void varint(ByteArrayOutputStream out, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }
}
