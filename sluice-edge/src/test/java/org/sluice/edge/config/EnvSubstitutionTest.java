package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;

class EnvSubstitutionTest {

    private static SluiceConfig load(String yaml, Map<String, String> env) {
        return ConfigLoader.parse(yaml, env, "test");
    }

    private static java.util.List<String> errors(String yaml, Map<String, String> env) {
        return catchThrowableOfType(ConfigException.class, () -> load(yaml, env)).errors();
    }

    @Test
    void aSetVariableIsSubstituted() {
        assertThat(load("node: {id: \"${NODE}\"}", Map.of("NODE", "edge-7")).node().id()).isEqualTo("edge-7");
    }

    @Test
    void theDefaultAppliesWhenTheVariableIsUnsetOrEmpty() {
        String yaml = "node: {id: \"${NODE:-edge-9}\"}";
        assertThat(load(yaml, Map.of()).node().id()).isEqualTo("edge-9");
        assertThat(load(yaml, Map.of("NODE", "")).node().id()).isEqualTo("edge-9");
        assertThat(load(yaml, Map.of("NODE", "edge-2")).node().id()).isEqualTo("edge-2");
    }

    @Test
    void anEmptyDefaultGivesAnEmptyString() {
        assertThat(load("admin: {token: \"${T:-}\"}", Map.of()).admin().token()).isEmpty();
    }

    @Test
    void aVariableSetToEmptyWithoutDefaultIsEmpty() {
        assertThat(load("admin: {token: \"${T}\"}", Map.of("T", "")).admin().token()).isEmpty();
    }

    @Test
    void anUnsetVariableWithoutDefaultNamesTheKeyPath() {
        assertThat(errors("rate_limits: {host_arena: \"${ARENA}\"}", Map.of())).containsExactly(
                "rate_limits.host_arena uses ${ARENA}, which is not set (write ${ARENA:-default} to give it a default)");
    }

    @Test
    void referencesMixWithText() {
        SluiceConfig c = load("node: {data_dir: \"${BASE:-/var/lib}/sluice-${NODE}\"}", Map.of("NODE", "n1"));
        assertThat(c.node().dataDir()).hasToString("/var/lib/sluice-n1");
    }

    @Test
    void doubleDollarWritesALiteralReference() {
        SluiceConfig c = load("sources: {s: {verify: {scheme: github, secrets: [\"a$${NOT_A_VAR}b\"]}}}", Map.of());
        assertThat(c.sources().get("s").verify().secrets()).containsExactly("a${NOT_A_VAR}b");
    }

    @Test
    void aLoneDollarIsLiteral() {
        SluiceConfig c = load("sources: {s: {verify: {scheme: github, secrets: [\"pa$$word$\"]}}}", Map.of());
        assertThat(c.sources().get("s").verify().secrets()).containsExactly("pa$$word$");
    }

    @Test
    void aValueNeverChangesTheStructureWhateverItHolds() {
        String nasty = "x\", injected: true}\n- y: \"z";
        SluiceConfig c = load("sources: {s: {verify: {scheme: github, secrets: [\"${S}\"]}}}", Map.of("S", nasty));
        assertThat(c.sources().get("s").verify().secrets()).containsExactly(nasty);
    }

    @Test
    void numbersAndBooleansMayComeFromTheEnvironment() {
        String yaml = """
                http: {max_body_bytes: "${MAX_BODY:-5000}", reuse_port: "${REUSE:-false}"}
                intake: {partitions: "${PARTS}"}
                fleet: {breaker_failure_rate: "${RATE}"}
                rate_limits: {default: {rate: "${R}", burst: "${B:-10}"}}
                """;
        SluiceConfig c = load(yaml, Map.of("PARTS", "4", "REUSE", "true", "RATE", "0.25", "R", "2.5"));
        assertThat(c.http().maxBodyBytes()).isEqualTo(5000);
        assertThat(c.http().reusePort()).isTrue();
        assertThat(c.intake().partitions()).isEqualTo(4);
        assertThat(c.fleet().breakerFailureRate()).isEqualTo(0.25);
        assertThat(c.rateLimits().defaultLimit()).contains(Limit.of(2.5, 10));
    }

    @Test
    void aBadValueFromTheEnvironmentSaysWhereItCameFrom() {
        assertThat(errors("intake: {partitions: \"${PARTS}\"}", Map.of("PARTS", "many"))).containsExactly(
                "intake.partitions must be an integer between 1 and 64, got \"many\" (from ${PARTS})");
        assertThat(errors("rate_limits: {default: {rate: 1, burst: \"${B}\"}}", Map.of("B", "0"))).containsExactly(
                "rate_limits.default.burst must be an integer of at least 1, got 0 (from ${B})");
        assertThat(errors("http: {reuse_port: \"${R}\"}", Map.of("R", "yes"))).containsExactly(
                "http.reuse_port must be true or false, got \"yes\" (from ${R})");
    }

    @Test
    void aSecretFromTheEnvironmentIsRedactedButItsVariableIsNamed() {
        assertThat(errors("admin: {token: \"${TOKEN}\"}", Map.of("TOKEN", "abc"))).containsExactly(
                "admin.token must be at least 16 characters (or empty, to generate one), got a 3-character value"
                        + " from ${TOKEN} (redacted: secrets are never printed)");
    }

    @Test
    void malformedReferencesAreReportedWithoutTheirText() {
        assertThat(errors("node: {id: \"${NODE\"}", Map.of())).containsExactly(
                "node.id has a ${ with no closing } (write $${ for a literal ${)");
        assertThat(errors("node: {id: \"${1NODE}\"}", Map.of())).containsExactly(
                "node.id refers to a variable with an invalid name (a name is letters, digits and _, not starting"
                        + " with a digit; write $${ for a literal ${)");
    }

    @Test
    void keysAreNotSubstituted() {
        assertThat(errors("rate_limits: {tenants: {\"${T}\": {rate: 1, burst: 1}}}", Map.of("T", "acme")))
                .containsExactly("rate_limits.tenants has an invalid tenant id \"${T}\": a tenant id is 1 to 64"
                        + " characters from A-Z a-z 0-9 . _ -, not starting with a dot");
    }

    @Test
    void referencesInListsNameTheirIndex() {
        assertThat(errors("http: {trusted_proxies: [\"10.0.0.0/8\", \"${PROXY}\"]}", Map.of())).containsExactly(
                "http.trusted_proxies[1] uses ${PROXY}, which is not set (write ${PROXY:-default} to give it a default)");
        assertThat(load("http: {trusted_proxies: [\"${PROXY}\"]}", Map.of("PROXY", "192.168.0.0/16"))
                .http().trustedProxies().cidrs()).extracting(Cidr::toString).containsExactly("192.168.0.0/16");
    }
}
