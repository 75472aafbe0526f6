package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class VerifySpecTest {

    @Test
    void toStringNeverPrintsASecret() {
        VerifySpec spec = new VerifySpec("github", List.of("topsecret-one", "s2"), 300, null, null, null, null);

        assertThat(spec.toString())
                .doesNotContain("topsecret-one")
                .doesNotContain("s2,")
                .contains("secrets=2 redacted (lengths 13,2)");
    }
}
