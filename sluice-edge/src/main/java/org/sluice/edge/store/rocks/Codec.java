package org.sluice.edge.store.rocks;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;

/**
 * Byte layouts of the store's keys and values (see docs/storage.md). All integers are
 * big-endian so that RocksDB's bytewise key order is numeric order for non-negative values.
 *
 * <pre>
 * hooks          key: seq u64                         value: hook record (below)
 * hook_ids       key: id (16 bytes)                   value: seq u64
 * dedupe         key: dedupe key (below)              value: id (16 bytes) | expiry millis u64
 * dedupe_expiry  key: expiry millis u64 | dedupe key  value: empty
 * overrides      key: tenant UTF-8                    value: limit JSON
 * audit          key: time millis u64 | counter u64   value: audit JSON
 * meta           key: name UTF-8                      value: per key
 *
 * dedupe key:  u32 len | tenant UTF-8 | u32 len | source UTF-8 | u32 len | key UTF-8
 * hook record: u8 version (1) | id (16) | receivedAt millis i64 | str tenant | str source
 *              | u8 hasKey | [str key] | u32 header count | (str name | str value)* | u32 len | body
 *              | [str traceparent]
 * str:         u32 len | UTF-8
 *
 * The traceparent (the ingest span's, when tracing is on) comes last and only when there is one:
 * a record written before it was kept ends at the body and reads with none; a reader that
 * predates it stops at the body and never sees it.
 * </pre>
 */
final class Codec {

    static final byte HOOK_FORMAT = 1;

    private Codec() {
    }

    // ---------------------------------------------------------------- fixed-width keys

    static byte[] u64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static long u64(byte[] b) {
        return ByteBuffer.wrap(b).getLong();
    }

    static byte[] uuid(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }

    /**
     * The UUID a hook id names, or null for a string that is not one: a malformed id reads
     * as "no such hook" everywhere an id comes from outside.
     */
    static UUID parseHookId(String id) {
        if (id == null || id.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static UUID uuid(ByteBuffer in) {
        return new UUID(in.getLong(), in.getLong());
    }

    // ---------------------------------------------------------------- dedupe

    static byte[] dedupeKey(String tenant, String source, String key) {
        byte[] t = utf8(tenant);
        byte[] s = utf8(source);
        byte[] k = utf8(key);
        return ByteBuffer.allocate(12 + t.length + s.length + k.length)
                .putInt(t.length).put(t).putInt(s.length).put(s).putInt(k.length).put(k).array();
    }

    static byte[] dedupeValue(UUID id, long expiryMillis) {
        return ByteBuffer.allocate(24).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits())
                .putLong(expiryMillis).array();
    }

    static UUID dedupeValueId(byte[] value) {
        return uuid(ByteBuffer.wrap(value));
    }

    static long dedupeValueExpiry(byte[] value) {
        return ByteBuffer.wrap(value, 16, 8).getLong();
    }

    static byte[] expiryKey(long expiryMillis, byte[] dedupeKey) {
        return ByteBuffer.allocate(8 + dedupeKey.length).putLong(Math.max(0, expiryMillis)).put(dedupeKey).array();
    }

    static long expiryKeyMillis(byte[] key) {
        return ByteBuffer.wrap(key, 0, 8).getLong();
    }

    static byte[] expiryKeyDedupeKey(byte[] key) {
        byte[] d = new byte[key.length - 8];
        System.arraycopy(key, 8, d, 0, d.length);
        return d;
    }

    // ---------------------------------------------------------------- hook records

    static byte[] hook(UUID id, PendingHook h) {
        ByteBuffer out = ByteBuffer.allocate(hookSize(h));
        putHook(out, id, h);
        return out.array();
    }

    /** Bytes of {@code h}'s record: what {@link #putHook} writes. */
    static int hookSize(PendingHook h) {
        int size = 1 + 16 + 8 + strSize(h.tenant()) + strSize(h.source()) + 1
                + (h.dedupeKey() == null ? 0 : strSize(h.dedupeKey())) + 4 + 4 + h.body().length
                + (h.traceparent() == null ? 0 : strSize(h.traceparent()));
        Map<String, String> headers = h.headers();
        if (headers instanceof OrderedHeaders ordered) { // by index: no entry objects
            for (int i = 0; i < ordered.size(); i++) {
                size += strSize(ordered.name(i)) + strSize(ordered.value(i));
            }
        } else {
            for (Map.Entry<String, String> e : headers.entrySet()) {
                size += strSize(e.getKey()) + strSize(e.getValue());
            }
        }
        return size;
    }

    /**
     * Writes {@code h}'s record at {@code out}'s position ({@link #hookSize} bytes, into a heap
     * or a direct buffer). ASCII strings, nearly every name and value, are written char by char
     * without an intermediate array.
     */
    static void putHook(ByteBuffer out, UUID id, PendingHook h) {
        out.put(HOOK_FORMAT).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits())
                .putLong(h.receivedAtMillis());
        putStr(out, h.tenant());
        putStr(out, h.source());
        out.put((byte) (h.dedupeKey() == null ? 0 : 1));
        if (h.dedupeKey() != null) {
            putStr(out, h.dedupeKey());
        }
        Map<String, String> headers = h.headers();
        out.putInt(headers.size());
        if (headers instanceof OrderedHeaders ordered) {
            for (int i = 0; i < ordered.size(); i++) {
                putStr(out, ordered.name(i));
                putStr(out, ordered.value(i));
            }
        } else {
            for (Map.Entry<String, String> e : headers.entrySet()) {
                putStr(out, e.getKey());
                putStr(out, e.getValue());
            }
        }
        putBytes(out, h.body());
        if (h.traceparent() != null) {
            putStr(out, h.traceparent());
        }
    }

    /** Writes {@code id} into a record written by {@link #putHook} at {@code offset} of {@code out}. */
    static void setHookId(ByteBuffer out, int offset, UUID id) {
        out.putLong(offset + 1, id.getMostSignificantBits()).putLong(offset + 9, id.getLeastSignificantBits());
    }

    private static int strSize(String s) {
        return 4 + (isAscii(s) ? s.length() : utf8(s).length);
    }

    private static void putStr(ByteBuffer out, String s) {
        if (!isAscii(s)) {
            putBytes(out, utf8(s));
            return;
        }
        int n = s.length();
        out.putInt(n);
        for (int i = 0; i < n; i++) {
            out.put((byte) s.charAt(i));
        }
    }

    private static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    static StoredHook hook(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        byte format = in.get();
        if (format != HOOK_FORMAT) {
            throw new HookStoreException("stored hook record has format " + format + ", this version reads " + HOOK_FORMAT);
        }
        UUID id = uuid(in);
        long receivedAt = in.getLong();
        String tenant = getString(in);
        String source = getString(in);
        String key = in.get() == 0 ? null : getString(in);
        int headerCount = in.getInt();
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 0; i < headerCount; i++) {
            headers.put(getString(in), getString(in));
        }
        byte[] body = getBytes(in);
        String traceparent = in.hasRemaining() ? getString(in) : null; // absent from records written before it was kept
        return new StoredHook(id.toString(), tenant, source, key, receivedAt, Collections.unmodifiableMap(headers), body,
                traceparent);
    }

    /** The tenant of a stored hook record, read without decoding the rest. */
    static String tenantOf(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        in.position(1 + 16 + 8);
        return getString(in);
    }

    /** The body length of a stored hook record: the fields before it are skipped, not decoded. */
    static int bodyLengthOf(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        in.position(1 + 16 + 8);
        skipStr(in); // tenant
        skipStr(in); // source
        if (in.get() != 0) {
            skipStr(in); // dedupe key
        }
        int headerCount = in.getInt();
        for (int i = 0; i < 2 * headerCount; i++) {
            skipStr(in);
        }
        return in.getInt();
    }

    private static void skipStr(ByteBuffer in) {
        int n = in.getInt();
        in.position(in.position() + n);
    }

    // ---------------------------------------------------------------- helpers

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void putBytes(ByteBuffer out, byte[] b) {
        out.putInt(b.length).put(b);
    }

    private static byte[] getBytes(ByteBuffer in) {
        byte[] b = new byte[in.getInt()];
        in.get(b);
        return b;
    }

    private static String getString(ByteBuffer in) {
        return new String(getBytes(in), StandardCharsets.UTF_8);
    }
}
