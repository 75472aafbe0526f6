package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;

class FleetChargesTest {

    @Test
    void hookChargeIsOneIntervalAndBurstIntervals() {
        FleetCharges c = FleetCharges.of(Limit.of(100, 50), 1_000);
        assertThat(c).isEqualTo(new FleetCharges(10_000, 500_000, 0, 0));
    }

    @Test
    void fractionalRatesAreExactInMicroseconds() {
        assertThat(FleetCharges.of(Limit.of(0.5, 1), 0).hookIncUs()).isEqualTo(2_000_000);
        assertThat(FleetCharges.of(Limit.of(3, 1), 0).hookIncUs()).isEqualTo(333_333);
    }

    @Test
    void byteChargeComesFromTheByteCountSoFastByteRatesStayExact() {
        // 100 MB/s: 0.01 us per byte; a 1 MiB body is 10486 us, a 1-byte body still costs 1 us
        Limit limit = Limit.of(100, 50).withBytesPerSecond(100_000_000).withBurstBytes(10_000_000);
        assertThat(FleetCharges.of(limit, 1_048_576)).isEqualTo(new FleetCharges(10_000, 500_000, 10_486, 100_000));
        assertThat(FleetCharges.of(limit, 1).byteIncUs()).isEqualTo(1);
        assertThat(FleetCharges.of(limit, 0).byteIncUs()).isZero();
    }

    @Test
    void oversizedBodyIsAnOversizedCharge() {
        Limit limit = Limit.of(10, 5).withBytesPerSecond(1_000).withBurstBytes(2_000);
        FleetCharges c = FleetCharges.of(limit, 3_000);
        assertThat(c.byteIncUs()).isGreaterThan(c.byteTolUs());
    }
}
