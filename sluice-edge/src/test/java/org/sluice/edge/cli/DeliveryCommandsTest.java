package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The text the delivery commands print. (The commands themselves: {@code server.DeliveryCliTest}.) */
class DeliveryCommandsTest {

    @Test
    void theProgressBarFillsInProportionAndAnEmptyReplayIsFull() {
        assertThat(DeliveryCommands.progress(0, 40, 0, 0))
                .isEqualTo("[------------------------------] 0/40 scheduled, 0 delivered, 0 dead");
        assertThat(DeliveryCommands.progress(20, 40, 3, 1))
                .isEqualTo("[###############---------------] 20/40 scheduled, 3 delivered, 1 dead");
        assertThat(DeliveryCommands.progress(0, 0, 0, 0)).startsWith("[" + "#".repeat(30) + "]");
    }

    @Test
    void agesAreShort() {
        assertThat(DeliveryCommands.age(0)).isEqualTo("0s");
        assertThat(DeliveryCommands.age(59_999)).isEqualTo("59s");
        assertThat(DeliveryCommands.age(185_000)).isEqualTo("3m05s");
        assertThat(DeliveryCommands.age(3_720_000)).isEqualTo("1h02m");
    }
}
