package org.sluice.edge.store.rocks;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.HookStoreException;

/**
 * Byte layouts of the delivery ledger's keys and values (see docs/storage.md). Integers
 * big-endian, as in {@link Codec}; a destination inside a key is length-prefixed unless it
 * ends the key.
 *
 * <pre>
 * deliveries               key: seq u64 | destination UTF-8                      value: delivery row (below)
 * delivery_due             key: u32 len | destination | due millis u64 | seq u64  value: empty
 * delivery_by_destination  key: u8 state | u32 len | destination | seq u64       value: hook id (16)
 * destinations             key: destination UTF-8                               value: destination record (below)
 *
 * delivery row: u8 version (1) | hook id (16) | u8 state | u32 attempts | next attempt millis i64
 *               | scheduled millis i64 | updated millis i64 | u8 flags
 *               | [i32 last status] (flag 1) | [str last error] (flag 2) | [delivered millis i64] (flag 4)
 *               | [u8 dead reason, dead millis i64] (flag 8)
 * state: 0 pending, 1 delivered, 2 dead; dead reason: 1 permanent_status, 2 max_attempts, 3 max_age,
 *   4 permanent_error (new reasons are appended: a stored byte never changes meaning)
 *
 * destination record: u8 version (1) | u8 flags (1: paused, 2: disabled, 4: failing) | updated millis i64
 *               | [disabled millis i64 | str last error] (flag 2) | [failing since millis i64] (flag 4)
 * </pre>
 * A reader that knows only flag 1 reads the pause of a record with the disabled tail alike,
 * and one that knows flags 1 and 2 reads a record with the failing tail alike (it follows
 * whatever tail it knows).
 */
final class DeliveryCodec {

    static final byte ROW_FORMAT = 1;
    static final byte DESTINATION_FORMAT = 1;
    /**
     * Stored dead reasons; the position + 1 is the byte. {@link DeliveryRow#DEAD_REASONS}' order
     * is therefore part of the format: a new reason is appended there.
     */
    static final List<String> DEAD_REASONS = DeliveryRow.DEAD_REASONS;

    private static final int F_STATUS = 1;
    private static final int F_ERROR = 2;
    private static final int F_DELIVERED = 4;
    private static final int F_DEAD = 8;

    private DeliveryCodec() {
    }

    // ---------------------------------------------------------------- keys

    static byte[] rowKey(long seq, String destination) {
        byte[] d = Codec.utf8(destination);
        return ByteBuffer.allocate(8 + d.length).putLong(seq).put(d).array();
    }

    static long rowKeySeq(byte[] key) {
        return ByteBuffer.wrap(key, 0, 8).getLong();
    }

    static String rowKeyDestination(byte[] key) {
        return new String(key, 8, key.length - 8, StandardCharsets.UTF_8);
    }

    /** The first key of a destination's due entries; {@link #destinationPrefix} tells where they end. */
    static byte[] dueKey(String destination, long dueMillis, long seq) {
        byte[] d = Codec.utf8(destination);
        return ByteBuffer.allocate(4 + d.length + 16).putInt(d.length).put(d).putLong(Math.max(0, dueMillis)).putLong(seq).array();
    }

    static byte[] destinationPrefix(String destination) {
        byte[] d = Codec.utf8(destination);
        return ByteBuffer.allocate(4 + d.length).putInt(d.length).put(d).array();
    }

    static long dueKeyMillis(byte[] key) {
        return ByteBuffer.wrap(key, key.length - 16, 8).getLong();
    }

    static long dueKeySeq(byte[] key) {
        return ByteBuffer.wrap(key, key.length - 8, 8).getLong();
    }

    static byte[] indexKey(DeliveryState state, String destination, long seq) {
        byte[] d = Codec.utf8(destination);
        return ByteBuffer.allocate(1 + 4 + d.length + 8).put(stateByte(state)).putInt(d.length).put(d).putLong(seq).array();
    }

    static byte[] indexPrefix(DeliveryState state, String destination) {
        byte[] d = Codec.utf8(destination);
        return ByteBuffer.allocate(1 + 4 + d.length).put(stateByte(state)).putInt(d.length).put(d).array();
    }

    static DeliveryState indexKeyState(byte[] key) {
        return stateOf(key[0]);
    }

    static String indexKeyDestination(byte[] key) {
        int len = ByteBuffer.wrap(key, 1, 4).getInt();
        return new String(key, 5, len, StandardCharsets.UTF_8);
    }

    static long indexKeySeq(byte[] key) {
        return ByteBuffer.wrap(key, key.length - 8, 8).getLong();
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        if (key.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- rows

    static byte[] row(UUID hookId, DeliveryRow r) {
        byte[] error = r.lastError() == null ? null : Codec.utf8(r.lastError());
        int flags = (r.lastStatus() != null ? F_STATUS : 0) | (error != null ? F_ERROR : 0)
                | (r.deliveredAtMillis() != null ? F_DELIVERED : 0) | (r.deadReason() != null ? F_DEAD : 0);
        int size = 1 + 16 + 1 + 4 + 8 + 8 + 8 + 1 + ((flags & F_STATUS) != 0 ? 4 : 0)
                + (error != null ? 4 + error.length : 0) + ((flags & F_DELIVERED) != 0 ? 8 : 0) + ((flags & F_DEAD) != 0 ? 9 : 0);
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(ROW_FORMAT).putLong(hookId.getMostSignificantBits()).putLong(hookId.getLeastSignificantBits())
                .put(stateByte(r.state())).putInt(r.attempts()).putLong(r.nextAttemptAtMillis())
                .putLong(r.scheduledAtMillis()).putLong(r.updatedAtMillis()).put((byte) flags);
        if (r.lastStatus() != null) {
            out.putInt(r.lastStatus());
        }
        if (error != null) {
            out.putInt(error.length).put(error);
        }
        if (r.deliveredAtMillis() != null) {
            out.putLong(r.deliveredAtMillis());
        }
        if (r.deadReason() != null) {
            out.put(deadReasonByte(r.deadReason())).putLong(r.deadAtMillis() == null ? 0 : r.deadAtMillis());
        }
        return out.array();
    }

    /** The hook id a stored row names (its value's first field after the format byte). */
    static UUID rowHookId(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value, 1, 16);
        return Codec.uuid(in);
    }

    static DeliveryRow row(String destination, byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        byte format = in.get();
        if (format != ROW_FORMAT) {
            throw new HookStoreException("stored delivery row has format " + format + ", this version reads " + ROW_FORMAT);
        }
        UUID id = Codec.uuid(in);
        DeliveryState state = stateOf(in.get());
        int attempts = in.getInt();
        long next = in.getLong();
        long scheduled = in.getLong();
        long updated = in.getLong();
        int flags = in.get();
        Integer status = (flags & F_STATUS) != 0 ? in.getInt() : null;
        String error = null;
        if ((flags & F_ERROR) != 0) {
            byte[] e = new byte[in.getInt()];
            in.get(e);
            error = new String(e, StandardCharsets.UTF_8);
        }
        Long delivered = (flags & F_DELIVERED) != 0 ? in.getLong() : null;
        String reason = null;
        Long deadAt = null;
        if ((flags & F_DEAD) != 0) {
            reason = deadReason(in.get());
            deadAt = in.getLong();
        }
        return new DeliveryRow(id.toString(), destination, state, attempts, next, scheduled, updated, status, error,
                delivered, reason, deadAt);
    }

    /** The byte a state is stored as: 0 pending, 1 delivered, 2 dead. */
    static byte stateByte(DeliveryState state) {
        return switch (state) {
            case PENDING -> 0;
            case DELIVERED -> 1;
            case DEAD -> 2;
        };
    }

    static DeliveryState stateOf(byte b) {
        return switch (b) {
            case 0 -> DeliveryState.PENDING;
            case 1 -> DeliveryState.DELIVERED;
            case 2 -> DeliveryState.DEAD;
            default -> throw new HookStoreException("stored delivery row has state " + b + ", this version reads 0 to 2");
        };
    }

    static byte deadReasonByte(String reason) {
        int i = DEAD_REASONS.indexOf(reason);
        if (i < 0) {
            throw new IllegalArgumentException("dead reason must be one of " + DEAD_REASONS + ", got " + reason);
        }
        return (byte) (i + 1);
    }

    private static String deadReason(byte b) {
        if (b < 1 || b > DEAD_REASONS.size()) {
            throw new HookStoreException("stored delivery row has dead reason " + b + ", this version reads 1 to " + DEAD_REASONS.size());
        }
        return DEAD_REASONS.get(b - 1);
    }

    // ---------------------------------------------------------------- destinations

    /** A destination record; {@code failingSince} negative: no failing tail. */
    static byte[] destination(boolean paused, DisabledDestination disabled, long failingSince, long updatedMillis) {
        byte[] error = disabled == null ? new byte[0] : disabled.lastError().getBytes(StandardCharsets.UTF_8);
        boolean failing = failingSince >= 0;
        ByteBuffer out = ByteBuffer.allocate(10 + (disabled == null ? 0 : 12 + error.length) + (failing ? 8 : 0))
                .put(DESTINATION_FORMAT)
                .put((byte) ((paused ? 1 : 0) | (disabled == null ? 0 : 2) | (failing ? 4 : 0)))
                .putLong(updatedMillis);
        if (disabled != null) {
            out.putLong(disabled.atMillis()).putInt(error.length).put(error);
        }
        if (failing) {
            out.putLong(failingSince);
        }
        return out.array();
    }

    static boolean destinationPaused(byte[] value) {
        checkDestinationFormat(value);
        return (value[1] & 1) != 0;
    }

    /** The disabled tail of a destination record, or null when it has none. */
    static DisabledDestination destinationDisabled(byte[] value) {
        checkDestinationFormat(value);
        if ((value[1] & 2) == 0) {
            return null;
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(value, 10, value.length - 10);
            long at = in.getLong();
            byte[] error = new byte[in.getInt()];
            in.get(error);
            return new DisabledDestination(at, new String(error, StandardCharsets.UTF_8));
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException | NegativeArraySizeException e) {
            throw new HookStoreException("stored destination record has a truncated disabled part", e);
        }
    }

    /** The failing tail of a destination record (epoch ms), or -1 when it has none. */
    static long destinationFailingSince(byte[] value) {
        checkDestinationFormat(value);
        if ((value[1] & 4) == 0) {
            return -1;
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(value, 10, value.length - 10);
            if ((value[1] & 2) != 0) { // past the disabled tail: its time, then its error
                in.position(in.position() + 8);
                int errorLength = in.getInt();
                in.position(in.position() + errorLength);
            }
            return in.getLong();
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new HookStoreException("stored destination record has a truncated failing part", e);
        }
    }

    private static void checkDestinationFormat(byte[] value) {
        if (value.length < 10 || value[0] != DESTINATION_FORMAT) {
            throw new HookStoreException("stored destination record has format " + (value.length == 0 ? "none" : value[0])
                    + " (" + value.length + " bytes), this version reads " + DESTINATION_FORMAT);
        }
    }
}
