package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.Gcra;

class SharedGcraTableTest {

    private static final long MS = 1_000_000L;

    private final ShmFiles files = new ShmFiles();
    private SharedArena arena;
    private SharedGcraTable gcra;
    private final long t0 = 123_456_789_000_000L;

    @BeforeEach
    void open() {
        arena = SharedArena.create(files.fresh(), 1 << 20);
        gcra = arena.gcraTable("tenants", 256);
    }

    @AfterEach
    void close() throws Exception {
        arena.close();
        files.close();
    }

    @Test
    void chargesWithThePolicyGivenPerCall() {
        long interval = Gcra.emissionIntervalNanos(10); // 100 ms
        long tolerance = Gcra.toleranceNanos(interval, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(gcra.tryCharge("a", interval, tolerance, t0)).isZero();
        }
        assertThat(gcra.tryCharge("a", interval, tolerance, t0)).isEqualTo(100 * MS);
        assertThat(gcra.tryCharge("a", interval, tolerance, t0 + 40 * MS)).isEqualTo(60 * MS);
        assertThat(gcra.tryCharge("a", interval, tolerance, t0 + 100 * MS)).isZero();
        assertThat(gcra.tryCharge("a", interval, tolerance, t0 + 100 * MS)).isEqualTo(100 * MS);
    }

    @Test
    void keysWithDifferentLimitsShareOneTable() {
        long slow = Gcra.emissionIntervalNanos(1);
        long fast = Gcra.emissionIntervalNanos(1000);
        assertThat(gcra.tryCharge("free-plan", slow, slow, t0)).isZero();
        assertThat(gcra.tryCharge("free-plan", slow, slow, t0)).isEqualTo(1000 * MS);
        int fastAdmitted = 0;
        for (int i = 0; i < 100; i++) {
            fastAdmitted += gcra.tryCharge("paid-plan".getBytes(StandardCharsets.UTF_8), fast, Gcra.toleranceNanos(fast, 50), t0) == 0 ? 1 : 0;
        }
        assertThat(fastAdmitted).isEqualTo(50);
        assertThat(gcra.stats(t0)).isEqualTo(new SharedGcraTable.Stats(256, 2, 51, 51, 0, 0));
    }

    @Test
    void waitNanosPeeksWithoutCharging() {
        long interval = 250 * MS;
        assertThat(gcra.waitNanos("k", interval, interval, t0)).isZero();
        gcra.tryCharge("k", interval, interval, t0);
        assertThat(gcra.waitNanos("k", interval, interval, t0 + 50 * MS)).isEqualTo(200 * MS);
        assertThat(gcra.waitNanos("k".getBytes(StandardCharsets.UTF_8), interval, interval, t0 + 50 * MS)).isEqualTo(200 * MS);
        assertThat(gcra.stats(t0).allowed()).isEqualTo(1);
    }

    @Test
    void oversizedChargesNeedAFullBucket() {
        long interval = 10 * MS;
        long tolerance = 50 * MS;
        assertThat(gcra.tryCharge("k", 80 * MS, tolerance, t0)).isZero(); // full bucket: admitted, left empty
        assertThat(gcra.tryCharge("k", interval, tolerance, t0)).isEqualTo(10 * MS);
        assertThat(gcra.tryCharge("k", 80 * MS, tolerance, t0 + 20 * MS)).isEqualTo(30 * MS); // until full again
    }

    @Test
    void nanosecondsAreRoundedToMicroseconds() {
        // 333 333 333 ns (3 per second) is stored as 333 333 us: three charges fit in one second exactly
        long interval = Gcra.emissionIntervalNanos(3);
        for (int i = 0; i < 3; i++) {
            assertThat(gcra.tryCharge("k", interval, interval * 3, t0)).isZero();
        }
        // tolerance 999 999 999 ns rounds to 1 000 000 us, one more than 3 x 333 333
        assertThat(gcra.tryCharge("k", interval, interval * 3, t0)).isEqualTo(333_332_000L);
        assertThat(gcra.tryCharge("k", interval, interval * 3, t0 + 999_999_000L)).isZero(); // ns floored to us
        assertThat(gcra.tryCharge("tiny", 1, 1, t0)).isZero(); // 1 ns counts as 1 us
        assertThat(gcra.tryCharge("tiny", 1, 1, t0)).isEqualTo(1_000L);
    }

    @Test
    void forgetRefills() {
        gcra.tryCharge("k", 50 * MS, 50 * MS, t0);
        assertThat(gcra.waitNanos("k", 50 * MS, 50 * MS, t0)).isEqualTo(50 * MS);
        gcra.forget("k");
        assertThat(gcra.waitNanos("k", 50 * MS, 50 * MS, t0)).isZero();
        gcra.tryCharge("b", 50 * MS, 50 * MS, t0);
        gcra.forget("b".getBytes(StandardCharsets.UTF_8));
        assertThat(gcra.stats(t0).keys()).isZero();
    }

    @Test
    void refusesPoliciesItCannotHold() {
        assertThatThrownBy(() -> gcra.tryCharge("k", -1, 0, t0)).hasMessage("incrementNanos must be at least 0, got -1");
        long tooLong = SharedGcraTable.MAX_TOLERANCE_NANOS + 1;
        assertThatThrownBy(() -> gcra.tryCharge("k", 1, tooLong, t0))
                .hasMessage("toleranceNanos must be between 0 and " + SharedGcraTable.MAX_TOLERANCE_NANOS + ", got " + tooLong);
    }

    @Test
    void sharesItsSlotCodeWithSharedRate() {
        // the same carve read both ways: a SharedRate and a GCRA table agree on one key's bucket
        SharedRate r = arena.rate("both", 4, java.time.Duration.ofSeconds(4), 8, () -> t0);
        r.allow("k", 3);
        SharedGcraTable view = new SharedGcraTable("both", r.table(), arena.keyHash());
        assertThat(view.waitNanos("k", 1000 * MS, 4000 * MS, t0)).isZero();
        assertThat(view.waitNanos("k", 2000 * MS, 4000 * MS, t0)).isEqualTo(1000 * MS);
    }
}
