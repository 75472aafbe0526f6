package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryTimesTest {

    @Test
    void theEarliestTimeAfterNowIsNextAndTimesDueByThenAreForgotten() {
        RetryTimes times = new RetryTimes(8);
        times.add(300);
        times.add(100);
        times.add(200);
        times.add(200);
        assertThat(times.nextAfter(50)).isEqualTo(100);
        assertThat(times.nextAfter(100)).isEqualTo(200);
        assertThat(times.size()).isEqualTo(2);
        assertThat(times.nextAfter(300)).isEqualTo(-1);
        assertThat(times.size()).isZero();
    }

    @Test
    void pastTheBoundTheLatestTimesAreDropped() {
        RetryTimes times = new RetryTimes(3);
        for (long t = 10; t >= 1; t--) {
            times.add(t);
        }
        assertThat(times.size()).isEqualTo(3);
        assertThat(times.nextAfter(0)).isEqualTo(1);
        assertThat(times.nextAfter(1)).isEqualTo(2);
        assertThat(times.nextAfter(2)).isEqualTo(3);
        assertThat(times.nextAfter(3)).isEqualTo(-1);
        assertThatThrownBy(() -> new RetryTimes(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
