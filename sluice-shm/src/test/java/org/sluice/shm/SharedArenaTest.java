package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;

class SharedArenaTest {

    private final ShmFiles files = new ShmFiles();
    private final ManualClock clock = new ManualClock(1_000_000_000_000L);

    @AfterEach
    void cleanup() throws Exception {
        files.close();
    }

    @Test
    void defaultDirectoryIsDevShm() {
        assertThat(SharedArena.DEFAULT_DIRECTORY).isEqualTo(Path.of("/dev/shm"));
        assertThat(SharedArena.defaultFile("x").getFileName().toString()).isEqualTo("x");
    }

    @Test
    void createThenAttachShareTheSameBuckets() {
        Path file = files.fresh();
        try (SharedArena a = SharedArena.create(file, 1 << 20); SharedArena b = SharedArena.attach(file)) {
            SharedRate ra = a.rate("api", 3, Duration.ofSeconds(3), 64, clock);
            SharedRate rb = b.rate("api", 3, Duration.ofSeconds(3), 64, clock);
            assertThat(ra.allow("k")).isTrue();
            assertThat(rb.allow("k")).isTrue();
            assertThat(ra.allow("k")).isTrue();
            assertThat(rb.allow("k")).isFalse();
            assertThat(rb.stats().allowed()).isEqualTo(3);
            assertThat(b.sizeBytes()).isEqualTo(1 << 20);
        }
    }

    @Test
    void createOnAnExistingArenaAttachesAndKeepsItsSize() {
        Path file = files.fresh();
        try (SharedArena a = SharedArena.create(file, 1 << 20)) {
            a.rate("api", 1, Duration.ofSeconds(60), 8, clock).allow("k");
        }
        try (SharedArena again = SharedArena.create(file, 4 << 20)) {
            assertThat(again.sizeBytes()).isEqualTo(1 << 20);
            assertThat(again.rate("api", 1, Duration.ofSeconds(60), 8, clock).allow("k")).as("the bucket survived").isFalse();
        }
    }

    @Test
    void sizeIsRoundedToPagesAndBounded() {
        try (SharedArena a = SharedArena.create(files.fresh(), 100_000)) {
            assertThat(a.sizeBytes()).isEqualTo(102_400);
            assertThat(a.freeBytes()).isEqualTo(102_400 - ArenaLayout.FIRST_CARVE_AT);
        }
        assertThatThrownBy(() -> SharedArena.create(files.fresh(), 1000))
                .hasMessage("sizeBytes must be between 65536 and 2147479552, got 1000");
    }

    @Test
    void attachRefusesAMissingFile() {
        Path file = files.fresh();
        assertThatThrownBy(() -> SharedArena.attach(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("does not exist");
    }

    @Test
    void attachRefusesAnotherLayoutVersion() throws Exception {
        Path file = files.fresh();
        SharedArena.create(file, 1 << 20).close();
        writeInt(file, ArenaLayout.VERSION_AT, 2);
        assertThatThrownBy(() -> SharedArena.attach(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has layout version 2; this library reads layout version 3");
        assertThatThrownBy(() -> SharedArena.create(file, 1 << 20)).hasMessageContaining("layout version 2");
    }

    @Test
    void refusesAFileThatIsNotAnArena() throws Exception {
        Path file = files.fresh();
        ownerOnly(Files.write(file, new byte[ArenaLayout.FIRST_CARVE_AT * 2]));
        writeInt(file, 0, 0x7f454c46);
        assertThatThrownBy(() -> SharedArena.attach(file)).hasMessageContaining("not a sluice arena");
        assertThatThrownBy(() -> SharedArena.create(file, 1 << 20)).hasMessageContaining("not a sluice arena");
    }

    @Test
    void createLeavesSomeoneElsesSmallFileAlone() throws Exception {
        Path file = files.fresh();
        ownerOnly(Files.writeString(file, "notes\n"));
        assertThatThrownBy(() -> SharedArena.create(file, 1 << 20))
                .hasMessageContaining("not a sluice arena").hasMessageContaining("(6 bytes)").hasMessageContaining("left untouched");
        assertThat(Files.readString(file)).isEqualTo("notes\n");
    }

    @Test
    void attachRefusesAnUninitialisedFileWhichCreateInitialises() throws Exception {
        Path file = files.fresh();
        ownerOnly(Files.write(file, new byte[1 << 16])); // a creator that died before writing the magic
        assertThatThrownBy(() -> SharedArena.attach(file)).hasMessageContaining("never initialised");
        try (SharedArena a = SharedArena.create(file, 1 << 20)) {
            assertThat(a.sizeBytes()).isEqualTo(1 << 20);
            assertThat(a.rate("x", 1, Duration.ofSeconds(1)).allow("k")).isTrue();
        }
    }

    @Test
    void aPreviousBootsFileIsReinitialised() {
        Path file = files.fresh();
        UUID earlierBoot = UUID.randomUUID();
        try (SharedArena old = SharedArena.open(file, 1 << 20, true, earlierBoot, null)) {
            SharedRate r = old.rate("api", 1, Duration.ofSeconds(60), 8, clock);
            r.allow("k");
            assertThat(r.allow("k")).isFalse();
        }
        try (SharedArena now = SharedArena.attach(file)) {
            SharedRate r = now.rate("api", 7, Duration.ofSeconds(1), 8, clock); // other numbers: the old carve is gone
            assertThat(r.allow("k")).isTrue();
            assertThat(r.stats().allowed()).isEqualTo(1);
        }
    }

    @Test
    void sameNameSamePolicyIsOneCarve() {
        try (SharedArena a = SharedArena.create(files.fresh(), 1 << 20)) {
            SharedRate one = a.rate("login", 2, Duration.ofMinutes(5), 64, clock);
            long free = a.freeBytes();
            SharedRate two = a.rate("login", 2, Duration.ofMinutes(5), 64, clock);
            assertThat(a.freeBytes()).isEqualTo(free);
            one.allow("u");
            one.allow("u");
            assertThat(two.allow("u")).isFalse();
        }
    }

    @Test
    void sameNameWithOtherNumbersIsRefusedNamingBothPolicies() {
        try (SharedArena a = SharedArena.create(files.fresh(), 1 << 20)) {
            a.rate("api", 100, Duration.ofSeconds(60), 4096);
            assertThatThrownBy(() -> a.rate("api", 10, Duration.ofSeconds(60), 4096))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("already has rate 'api' (limit=100, window=PT1M, slots=4096)")
                    .hasMessageContaining("for rate 'api' (limit=10, window=PT1M, slots=4096)");
            assertThatThrownBy(() -> a.rate("api", 100, Duration.ofSeconds(61), 4096)).hasMessageContaining("window=PT1M1S");
            assertThatThrownBy(() -> a.rate("api", 100, Duration.ofSeconds(60), 8192)).hasMessageContaining("slots=8192");
            assertThatThrownBy(() -> a.gcraTable("api", 4096))
                    .hasMessageContaining("rate 'api' (limit=100").hasMessageContaining("gcra table 'api' (slots=4096)");
        }
    }

    @Test
    void carveNamesAreBounded() {
        try (SharedArena a = SharedArena.create(files.fresh(), 1 << 20)) {
            assertThatThrownBy(() -> a.rate("", 1, Duration.ofSeconds(1))).hasMessageContaining("carve name must be 1 to 64 bytes");
            String longName = "n".repeat(65);
            assertThatThrownBy(() -> a.gcraTable(longName, 8)).hasMessageContaining("(65 bytes)");
            assertThat(a.gcraTable("n".repeat(64), 8).slots()).isEqualTo(8);
        }
    }

    @Test
    void aFullArenaSaysHowMuchIsMissing() {
        try (SharedArena a = SharedArena.create(files.fresh(), 1 << 16)) {
            assertThatThrownBy(() -> a.gcraTable("big", 1 << 16))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has " + a.freeBytes() + " bytes free; gcra table 'big' (slots=65536) needs 525312");
        }
    }

    @Test
    void theDirectoryHoldsSixtyFourCarves() {
        try (SharedArena a = SharedArena.create(files.fresh(), 4 << 20)) {
            for (int i = 0; i < ArenaLayout.ENTRIES; i++) {
                a.gcraTable("t" + i, 8);
            }
            assertThatThrownBy(() -> a.gcraTable("one-more", 8)).hasMessageContaining("all 64 carve entries are used");
            assertThat(a.gcraTable("t7", 8).slots()).isEqualTo(8);
        }
    }

    @Test
    void anEntryLeftIncompleteByADeadProcessIsReused() {
        try (SharedArena a = SharedArena.create(files.fresh(), 1 << 20)) {
            // a carver killed after writing the name but before marking the entry READY
            ByteBuffer map = a.mapping();
            int at = ArenaLayout.entryAt(0);
            byte[] name = "half".getBytes(StandardCharsets.UTF_8);
            map.putInt(at + ArenaLayout.E_NAME_LENGTH, name.length);
            map.put(at + ArenaLayout.E_NAME, name);
            map.putInt(at + ArenaLayout.E_KIND, ArenaLayout.KIND_GCRA);
            SharedGcraTable t = a.gcraTable("half", 16);
            assertThat(t.slots()).isEqualTo(16);
            assertThat(map.getLong(at + ArenaLayout.E_STATE)).isEqualTo(ArenaLayout.READY);
            assertThat(a.gcraTable("other", 8).slots()).isEqualTo(8);
        }
    }

    @Test
    void aClosedArenaMakesNoCarvesButHandlesKeepWorking() {
        SharedArena a = SharedArena.create(files.fresh(), 1 << 20);
        SharedRate r = a.rate("api", 2, Duration.ofSeconds(1), 8, clock);
        a.close();
        a.close();
        assertThatThrownBy(() -> a.rate("api", 2, Duration.ofSeconds(1), 8)).hasMessageContaining("is closed");
        assertThat(r.allow("k")).isTrue();
    }

    /** A file as this process's own arena would be: 0600 (the checks refuse anything wider). */
    private static Path ownerOnly(Path file) throws Exception {
        return Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    private static void writeInt(Path file, int at, int value) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), at);
        }
    }
}
