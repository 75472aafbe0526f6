package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FleetSettingsTest {

    @Test
    void defaultsAreTheIssues() {
        FleetSettings d = FleetSettings.defaults();
        assertThat(d.redis()).containsExactly("redis://127.0.0.1:6379");
        assertThat(d.cluster()).isFalse();
        assertThat(d.timeoutMs()).isEqualTo(20);
        assertThat(d.breakerFailureRate()).isEqualTo(0.5);
        assertThat(d.breakerMinCalls()).isEqualTo(20);
        assertThat(d.breakerWindowMs()).isEqualTo(10_000);
        assertThat(d.breakerOpenMs()).isEqualTo(5_000);
        assertThat(d.pendingTtlMs()).isEqualTo(30_000);
        assertThat(d.settleIntervalMs()).isEqualTo(5);
        assertThat(d.settleQueueMax()).isEqualTo(50_000);
        assertThat(d.fallback()).isEqualTo(FleetSettings.Fallback.SHARE);
    }

    @Test
    void clusterUriListsAreAccepted() {
        FleetSettings s = FleetSettings.defaults()
                .withClusterRedis(List.of("redis://10.0.0.1:7000", "redis://10.0.0.2:7000", "rediss://h3:7001"));
        assertThat(s.cluster()).isTrue();
        assertThat(s.redis()).hasSize(3);
    }

    @Test
    void badValuesNameTheKeyAndValue() {
        assertThatThrownBy(() -> FleetSettings.defaults().withClusterRedis(List.of("redis://a:1", "http://b:2")))
                .hasMessageContaining("fleet.redis[1]").hasMessageContaining("http://b:2");
        assertThatThrownBy(() -> FleetSettings.defaults().withRedis("nope"))
                .hasMessageContaining("fleet.redis").hasMessageContaining("nope");
        assertThatThrownBy(() -> FleetSettings.defaults().withTimeoutMs(0))
                .hasMessage("fleet.timeout_ms must be an integer of at least 1, got 0");
        assertThatThrownBy(() -> FleetSettings.defaults().withBreaker(1.5, 20, 10_000, 5_000))
                .hasMessageContaining("fleet.breaker_failure_rate").hasMessageContaining("1.5");
        assertThatThrownBy(() -> FleetSettings.defaults().withBreaker(0.5, 0, 10_000, 5_000))
                .hasMessageContaining("fleet.breaker_min_calls");
        assertThatThrownBy(() -> FleetSettings.defaults().withSettle(5, 0))
                .hasMessageContaining("fleet.settle_queue_max");
        assertThatThrownBy(() -> FleetSettings.Fallback.parse("half"))
                .hasMessage("fleet.fallback must be share or whole, got half");
        assertThat(FleetSettings.Fallback.parse("Whole")).isEqualTo(FleetSettings.Fallback.WHOLE);
    }

    @Test
    void credentialsAreNeverPrinted() {
        assertThatThrownBy(() -> FleetSettings.defaults().withRedis("redis://:s3cret@"))
                .hasMessageContaining("fleet.redis").hasMessageNotContaining("s3cret")
                .hasMessageContaining("7-character credentials");
        FleetSettings ok = FleetSettings.defaults().withRedis("redis://user:s3cret@cache:6379");
        assertThat(ok.toString()).doesNotContain("s3cret").contains("@cache:6379");
    }

    @Test
    void aStoreDownAtBootIsNoErrorAndAnswersNodeLocal() throws Exception {
        int deadPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        FleetSettings s = FleetSettings.defaults().withRedis("redis://127.0.0.1:" + deadPort).withTimeoutMs(100);
        try (FleetClient fleet = FleetClient.start(s, "node-a")) {
            FleetAnswer a = Fixtures.answer(fleet.admit("t", "src", "k", 1, 1, 0, 0, true, true));
            assertThat(a).isInstanceOf(FleetAnswer.Fallback.class);
            assertThat(((FleetAnswer.Fallback) a).reason()).isEqualTo(FleetAnswer.Reason.ERROR);
            assertThat(fleet.degraded(FleetKind.RATE_LIMIT)).isTrue();
            assertThat(fleet.fallbackTotal(FleetKind.DEDUPE)).isEqualTo(1);
        }
    }
}
