package org.sluice.edge.delivery.nats;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.nats.client.impl.Headers;
import io.nats.client.support.ByteArrayBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * One publish's NATS headers, written once in the protocol's wire form
 * ({@code NATS/1.0\r\n}, then {@code name:value\r\n} per header in the order added, then
 * {@code \r\n}) and handed to the client as they are.
 *
 * <h2>Why not the client's own {@link Headers}</h2>
 * Built through the client, every header of every publish was checked character by character
 * (a stream per value), kept in a map, copied into a read-only map when the message was
 * queued, and turned into bytes again on the client's writer thread. In a profiled NATS
 * backlog replay that was a third of the dispatcher's samples and more than a third of the
 * client's threads' (docs/bench-notes/brokers-2026-12-05-to-06.md, "NATS headers written once,
 * and the server's own ack"). The client (jnats 2.21) takes a read-only {@link Headers} as it
 * is and asks it only
 * for its length and bytes, so this class answers those from the bytes written here. Should
 * a later client read headers another way, it would find the same pairs (every read is
 * answered, below), and {@code NatsTransportTest} reads the headers back from a real stream.
 *
 * <h2>Same rules as the client</h2>
 * A name must be printable ASCII other than {@code :} (33 to 126), a value printable ASCII
 * or tab (32 to 126, 9): the client's own checks. A pair that breaks them is left out, never
 * mangled, as the transport did when the client refused it ({@link Builder#add} says which).
 * Read-only: every change throws. Reads (by name, the key set, ...) are answered from a
 * client {@link Headers} parsed from the bytes on first use; nothing on the publish path
 * reads them.
 */
final class NatsWireHeaders extends Headers {

    private static final byte[] VERSION_LINE = "NATS/1.0\r\n".getBytes(StandardCharsets.US_ASCII);

    private final byte[] wire;
    /** The same headers as the client's, made on the first read (by any thread: a caller may read them anywhere). */
    @GuardedBy("this")
    private Headers parsed;

    private NatsWireHeaders(byte[] wire) {
        super(null, true, null);
        this.wire = wire;
    }

    /** Collects pairs in order; {@link #build()} once. Not thread-safe; one publish's. */
    static final class Builder implements BiConsumer<String, String> {
        private byte[] buf = new byte[512];
        private int len;

        Builder() {
            System.arraycopy(VERSION_LINE, 0, buf, 0, VERSION_LINE.length);
            len = VERSION_LINE.length;
        }

        /**
         * Adds {@code name: value}, or leaves the pair out (returns false) when the client
         * would refuse it: an empty name, a name character outside 33 to 126 or {@code :}, a
         * value character outside 32 to 126 other than tab.
         */
        boolean add(String name, String value) {
            if (name == null || name.isEmpty() || value == null || !isName(name) || !isValue(value)) {
                return false;
            }
            ensure(name.length() + value.length() + 3);
            len = ascii(name, buf, len);
            buf[len++] = ':';
            len = ascii(value, buf, len);
            buf[len++] = '\r';
            buf[len++] = '\n';
            return true;
        }

        @Override
        public void accept(String name, String value) {
            add(name, value);
        }

        NatsWireHeaders build() {
            ensure(2);
            buf[len++] = '\r';
            buf[len++] = '\n';
            return new NatsWireHeaders(Arrays.copyOf(buf, len));
        }

        private void ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
        }

        private static boolean isName(String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 33 || c > 126 || c == ':') {
                    return false;
                }
            }
            return true;
        }

        private static boolean isValue(String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if ((c < 32 && c != '\t') || c > 126) {
                    return false;
                }
            }
            return true;
        }

        /** {@code s}, checked to be ASCII, at {@code at}; returns the end. */
        private static int ascii(String s, byte[] b, int at) {
            for (int i = 0; i < s.length(); i++) {
                b[at++] = (byte) s.charAt(i);
            }
            return at;
        }
    }

    // ------------------------------------------------------------------ what the client asks

    @Override
    public boolean isReadOnly() {
        return true;
    }

    @Override
    public boolean isEmpty() {
        return wire.length == VERSION_LINE.length + 2;
    }

    @Override
    public boolean isDirty() {
        return false;
    }

    @Override
    public int serializedLength() {
        return wire.length;
    }

    @Override
    public byte[] getSerialized() {
        return wire.clone();
    }

    @Override
    public ByteArrayBuilder appendSerialized(ByteArrayBuilder bab) {
        return bab.append(wire);
    }

    @Override
    public int serializeToArray(int destPosition, byte[] dest) {
        System.arraycopy(wire, 0, dest, destPosition, wire.length);
        return wire.length;
    }

    // ------------------------------------------------------------------ reads, from the parsed copy
    // Each read the client's Headers offers is overridden to answer from the parsed copy: Java has
    // no delegation, so the list below repeats one line per method, and the read-only section one
    // throw per mutator. That is the shape of the client's class, not logic written twice.

    /** The client's own headers with the same pairs, parsed from the bytes once. */
    private synchronized Headers parsed() {
        if (parsed == null) {
            Headers h = new Headers();
            String text = new String(wire, StandardCharsets.US_ASCII);
            int at = VERSION_LINE.length;
            for (int end; (end = text.indexOf("\r\n", at)) > at; at = end + 2) {
                int colon = text.indexOf(':', at);
                h.add(text.substring(at, colon), text.substring(colon + 1, end));
            }
            parsed = new Headers(h, true, null);
        }
        return parsed;
    }

    @Override
    public int size() {
        return parsed().size();
    }

    @Override
    public boolean containsKey(String key) {
        return parsed().containsKey(key);
    }

    @Override
    public boolean containsKeyIgnoreCase(String key) {
        return parsed().containsKeyIgnoreCase(key);
    }

    @Override
    public Set<String> keySet() {
        return parsed().keySet();
    }

    @Override
    public Set<String> keySetIgnoreCase() {
        return parsed().keySetIgnoreCase();
    }

    @Override
    public List<String> get(String key) {
        return parsed().get(key);
    }

    @Override
    public String getFirst(String key) {
        return parsed().getFirst(key);
    }

    @Override
    public String getLast(String key) {
        return parsed().getLast(key);
    }

    @Override
    public List<String> getIgnoreCase(String key) {
        return parsed().getIgnoreCase(key);
    }

    @Override
    public void forEach(BiConsumer<String, List<String>> action) {
        parsed().forEach(action);
    }

    @Override
    public Set<Map.Entry<String, List<String>>> entrySet() {
        return parsed().entrySet();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NatsWireHeaders w && Arrays.equals(wire, w.wire);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(wire);
    }

    // ------------------------------------------------------------------ read-only

    @Override
    public Headers add(String key, String... values) {
        throw readOnly();
    }

    @Override
    public Headers add(String key, Collection<String> values) {
        throw readOnly();
    }

    @Override
    public Headers put(String key, String... values) {
        throw readOnly();
    }

    @Override
    public Headers put(String key, Collection<String> values) {
        throw readOnly();
    }

    @Override
    public Headers put(Map<String, List<String>> map) {
        throw readOnly();
    }

    @Override
    public void remove(String... keys) {
        throw readOnly();
    }

    @Override
    public void remove(Collection<String> keys) {
        throw readOnly();
    }

    @Override
    public void clear() {
        throw readOnly();
    }

    private static UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException("one publish's headers are read-only");
    }
}
