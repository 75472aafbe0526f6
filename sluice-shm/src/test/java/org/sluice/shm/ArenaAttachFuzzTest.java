package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.shm.ArenaLayout.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

/**
 * Fuzz target for {@link SharedArena#attach}: a file written by someone else (or damaged)
 * is untrusted input. Each run writes a file (mode 0600, owned by this user) of a fuzzed
 * size: sometimes a well-formed header with fuzzed fields, fuzzed directory entries (some
 * named like the carves asked for below) and fuzzed carve bytes, sometimes bytes only.
 * The contract: attach either refuses with the documented {@link IllegalStateException}
 * or attaches; then asking for a carve either refuses ({@code IllegalStateException} or
 * {@code IllegalArgumentException}) or gives a table whose every operation answers, over
 * whatever bucket words the file held. No IndexOutOfBoundsException, no JVM crash.
 */
@Tag("fuzz")
class ArenaAttachFuzzTest {

    private static final int RATE_SLOTS = 64;
    private static final long RATE_LIMIT = 10;
    private static final Duration RATE_WINDOW = Duration.ofSeconds(1);

    @FuzzTest(maxDuration = "30s")
    void attachRefusesOrServesACorruptedFile(FuzzedDataProvider data) throws IOException {
        byte[] file = fileBytes(data);
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        Path path = Files.createTempFile(dir, "sluice-fuzz-arena-", ".bin",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.write(path, file);
            SharedArena arena;
            try {
                arena = SharedArena.attach(path);
            } catch (IllegalStateException refused) {
                assertThat(refused.getMessage()).contains(path.toString());
                return;
            }
            try (arena) {
                assertThat(arena.sizeBytes()).isEqualTo(file.length);
                assertThat(arena.freeBytes()).isBetween(0L, (long) file.length);
                useCarves(arena, data);
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }

    private static void useCarves(SharedArena arena, FuzzedDataProvider data) {
        try {
            SharedRate rate = arena.rate("fz", RATE_LIMIT, RATE_WINDOW, RATE_SLOTS);
            for (int i = 0; i < 4; i++) {
                String key = data.consumeString(8);
                rate.allow(key, data.consumeLong(1, 20));
                rate.remaining(key);
                rate.retryAfter(key);
            }
            rate.stats();
        } catch (IllegalStateException | IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
        try {
            SharedGcraTable table = arena.gcraTable("gz", RATE_SLOTS);
            assertThat(table).isNotNull();
        } catch (IllegalStateException | IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
    }

    /** A file: its size, then a header and directory that are mostly well formed, then fuzzed bytes. */
    private static byte[] fileBytes(FuzzedDataProvider data) {
        int size = switch (data.consumeInt(0, 5)) {
            case 0 -> data.consumeInt(0, FIRST_CARVE_AT + 64);
            case 1 -> (int) MIN_SIZE;
            case 2 -> (int) MIN_SIZE + PAGE;
            case 3 -> data.consumeInt(FIRST_CARVE_AT, 128 * 1024);
            default -> 2 * (int) MIN_SIZE;
        };
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        if (size >= FIRST_CARVE_AT && data.consumeInt(0, 7) != 0) {
            b.putLong(MAGIC_AT, data.consumeInt(0, 15) == 0 ? data.consumeLong() : MAGIC);
            b.putInt(VERSION_AT, data.consumeInt(0, 15) == 0 ? data.consumeInt() : LAYOUT_VERSION);
            b.putInt(ENTRIES_AT, data.consumeInt(0, 15) == 0 ? data.consumeInt() : ENTRIES);
            UUID boot = data.consumeInt(0, 7) == 0 ? new UUID(data.consumeLong(), data.consumeLong()) : SharedArena.bootId();
            b.putLong(BOOT_ID_AT, boot.getMostSignificantBits()).putLong(BOOT_ID_AT + 8, boot.getLeastSignificantBits());
            b.putLong(FILE_SIZE_AT, data.consumeInt(0, 15) == 0 ? data.consumeLong() : size);
            b.putLong(TOP_AT, data.consumeBoolean() ? data.consumeLong() : data.consumeLong(FIRST_CARVE_AT, size));
            b.putLong(HASH_KEY_AT, data.consumeLong()).putLong(HASH_KEY_AT + 8, data.consumeLong());
            int entries = data.consumeInt(0, 3);
            for (int e = 0; e < entries; e++) {
                int at = entryAt(data.consumeInt(0, ENTRIES - 1));
                boolean rate = data.consumeBoolean();
                b.putLong(at + E_STATE, data.consumeInt(0, 15) == 0 ? data.consumeLong() : READY);
                b.putInt(at + E_KIND, data.consumeInt(0, 15) == 0 ? data.consumeInt() : rate ? KIND_RATE : KIND_GCRA);
                b.putInt(at + E_SLOTS, data.consumeInt(0, 15) == 0 ? data.consumeInt() : RATE_SLOTS);
                b.putLong(at + E_OFFSET, data.consumeBoolean() ? data.consumeLong() : data.consumeLong(FIRST_CARVE_AT, size) & ~63L);
                b.putLong(at + E_BYTES, data.consumeLong());
                b.putLong(at + E_LIMIT, rate ? RATE_LIMIT : 0);
                b.putLong(at + E_WINDOW, rate ? RATE_WINDOW.toNanos() : 0);
                byte[] name = (data.consumeInt(0, 7) == 0 ? data.consumeString(MAX_NAME_BYTES)
                        : rate ? "fz" : "gz").getBytes(StandardCharsets.UTF_8);
                b.putInt(at + E_NAME_LENGTH, data.consumeInt(0, 15) == 0 ? data.consumeInt() : name.length);
                b.put(at + E_NAME, name, 0, Math.min(name.length, MAX_NAME_BYTES));
            }
            byte[] tail = data.consumeRemainingAsBytes();
            b.put(FIRST_CARVE_AT, tail, 0, Math.min(tail.length, size - FIRST_CARVE_AT));
        } else {
            byte[] all = data.consumeRemainingAsBytes();
            b.put(0, all, 0, Math.min(all.length, size));
        }
        return b.array();
    }
}
