package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.Together;

/**
 * {@link InflightBodies} never holds more than its bound, whatever the contention: exact
 * counts from threads released at once, no timing.
 */
class InflightBodiesTest {

    @Test
    void threadsRacingForTheLastBytesGetExactlyTheBoundAndReleaseItAll() throws Exception {
        int max = 100_000;
        InflightBodies bodies = new InflightBodies(max);
        AtomicInteger granted = new AtomicInteger();
        Together.run(4, thread -> {
            for (int i = 0; i < 50_000; i++) {
                if (bodies.tryHold(1)) {
                    granted.incrementAndGet();
                }
                assertThat(bodies.held()).isLessThanOrEqualTo(max);
            }
        });
        assertThat(granted.get()).isEqualTo(max);
        assertThat(bodies.held()).isEqualTo(max);
        assertThat(bodies.hasRoom(1)).isFalse();
        assertThat(bodies.tryHold(1)).as("a refused hold holds nothing").isFalse();
        assertThat(bodies.held()).isEqualTo(max);
        bodies.release(max);
        assertThat(bodies.held()).isZero();
        assertThat(bodies.hasRoom(max)).isTrue();
        assertThat(bodies.hasRoom(max + 1L)).isFalse();
    }
}
