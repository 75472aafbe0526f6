package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Word access to the mapping, in whichever way this JVM uses (the raw way on Java 17 by
 * default): the three operations against the buffer's own view of the same bytes, the
 * region checks made once when a table is built, and the choice of way.
 * {@link MultiProcessTest} runs processes of both ways on one arena.
 */
class MappedWordsTest {

    private final ShmFiles files = new ShmFiles();

    @AfterEach
    void cleanup() throws Exception {
        files.close();
    }

    @Test
    void theWayInUseIsTheOneChosenForThisJvm() {
        assertThat(MappedWords.RAW)
                .isEqualTo(MappedWords.wantRaw(System.getProperty("org.sluice.shm.unsafe"), Runtime.version().feature()));
    }

    @Test
    void rawBeforeJava24ViewFromItOnAndThePropertyWins() {
        assertThat(MappedWords.wantRaw(null, 17)).isTrue();
        assertThat(MappedWords.wantRaw(null, 23)).isTrue();
        assertThat(MappedWords.wantRaw(null, 24)).isFalse();
        assertThat(MappedWords.wantRaw(null, 25)).isFalse();
        assertThat(MappedWords.wantRaw("false", 17)).isFalse();
        assertThat(MappedWords.wantRaw("true", 25)).isTrue();
        assertThat(MappedWords.wantRaw(" TRUE ", 25)).isTrue();
        assertThat(MappedWords.wantRaw("yes", 17)).as("anything but true is false, as Boolean.parseBoolean").isFalse();
    }

    @Test
    void readsCasAndAddsAreTheBuffersOwnBytes() {
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 20)) {
            ByteBuffer map = arena.mapping();
            int from = arena.carve("w", ArenaLayout.KIND_GCRA, 0, 0, 8);
            MappedWords words = new MappedWords(map, from, from + 64);
            ByteBuffer le = map.duplicate().order(ByteOrder.LITTLE_ENDIAN);

            le.putLong(from + 8, 0x1122334455667788L);
            assertThat(words.getVolatile(from + 8)).isEqualTo(0x1122334455667788L);
            assertThat(words.getVolatile(from + 16)).isZero();

            assertThat(words.compareAndSet(from + 8, 1L, 2L)).as("wrong expected value").isFalse();
            assertThat(le.getLong(from + 8)).isEqualTo(0x1122334455667788L);
            assertThat(words.compareAndSet(from + 8, 0x1122334455667788L, -5L)).isTrue();
            assertThat(le.getLong(from + 8)).isEqualTo(-5L);
            assertThat(le.getLong(from)).as("the neighbours are untouched").isZero();
            assertThat(le.getLong(from + 16)).isZero();

            for (int i = 0; i < 1000; i++) {
                words.getAndAdd(from + 56, 3L);
            }
            assertThat(le.getLong(from + 56)).isEqualTo(3000L);
            assertThat(words.getVolatile(from + 56)).isEqualTo(3000L);
        }
    }

    @Test
    void atomicAddsFromManyThreadsLoseNothing() throws Exception {
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 20)) {
            int from = arena.carve("w", ArenaLayout.KIND_GCRA, 0, 0, 8);
            MappedWords words = new MappedWords(arena.mapping(), from, from + 64);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(new Thread(() -> {
                    for (int i = 0; i < 100_000; i++) {
                        words.getAndAdd(from, 1L);
                        long v;
                        do {
                            v = words.getVolatile(from + 8);
                        } while (!words.compareAndSet(from + 8, v, v + 1));
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertThat(words.getVolatile(from)).isEqualTo(400_000L);
            assertThat(words.getVolatile(from + 8)).isEqualTo(400_000L);
        }
    }

    @Test
    void aRegionOutsideTheMappingOrMisalignedIsRefused() {
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 16)) {
            ByteBuffer map = arena.mapping();
            assertThatThrownBy(() -> new MappedWords(map, 65536 - 8, 65536 + 8))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[65528, 65544)").hasMessageContaining("65536 bytes");
            assertThatThrownBy(() -> new MappedWords(map, -8, 8)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new MappedWords(map, 4, 68)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("8-byte aligned");
            assertThatThrownBy(() -> new MappedWords(ByteBuffer.allocate(64), 0, 64)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("direct");
            assertThatThrownBy(() -> new MappedWords(map.asReadOnlyBuffer(), 0, 64)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("writable");
            assertThat(new MappedWords(map, 65536 - 64, 65536).getVolatile(65536 - 8)).isZero();
        }
    }

    @Test
    void aTableThatWouldNotFitItsMappingIsRefusedWhenBuilt() {
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 16)) {
            ByteBuffer map = arena.mapping();
            assertThatThrownBy(() -> new SlotTable(map, 65536 - 1024, 8))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8 slots at offset 64512");
            assertThatThrownBy(() -> new SlotTable(map, ArenaLayout.FIRST_CARVE_AT, 12))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two").hasMessageContaining("12");
            SlotTable t = new SlotTable(map, ArenaLayout.FIRST_CARVE_AT, 8);
            assertThatThrownBy(() -> t.word(8)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> t.word(-1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(t.word(7)).isZero();
        }
    }

    @Test
    void withAssertionsOnEveryAccessIsCheckedAgainstTheRegion() {
        boolean assertions = false;
        assert assertions = true;
        assumeTrue(assertions, "assertions are off");
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 16)) {
            int from = arena.carve("w", ArenaLayout.KIND_GCRA, 0, 0, 8);
            MappedWords words = new MappedWords(arena.mapping(), from, from + 64);
            assertThatThrownBy(() -> words.getVolatile(from + 64)).isInstanceOf(AssertionError.class);
            assertThatThrownBy(() -> words.compareAndSet(from - 8, 0, 1)).isInstanceOf(AssertionError.class);
            assertThatThrownBy(() -> words.getAndAdd(from + 4, 1)).isInstanceOf(AssertionError.class);
        }
    }
}
