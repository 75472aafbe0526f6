package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one tenant-id rule's boundaries. */
class TenantIdTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "acme", "acme.eu", "a.b.c", "a..b", "x.", "_a", "-a", "A-Z_0.9",
        "0123456789012345678901234567890123456789012345678901234567890123"})
    void accepts(String id) {
        assertThat(TenantId.valid(id)).as(id).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", ".hidden", "ac me", "ac/me", "ac%41", "acm\u00e9", "a:b", "a+b",
        "01234567890123456789012345678901234567890123456789012345678901234"})
    void refuses(String id) {
        assertThat(TenantId.valid(id)).as(id).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"rate_limits: {tenants: {acme.eu: {rate: 1, burst: 2}}}",
        "sources: {s: {tenant: acme.eu, verify: {scheme: none}}}"})
    void aDottedTenantLoadsFromTheConfig(String yaml) {
        assertThat(ConfigLoader.parse(yaml, java.util.Map.of(), "test")).isNotNull();
    }
}
