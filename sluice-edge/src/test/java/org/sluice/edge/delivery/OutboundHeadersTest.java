package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sluice.edge.store.StoredHook;

class OutboundHeadersTest {

    private static final String APP = "destinations.app";
    private static final String SECRET = "whsec_c2x1aWNlLWRlbGl2ZXJ5LXRlc3Qta2V5LTAxMjM0NTY=";
    private static final byte[] BODY = "{\"event\":\"paid\",\"amount\":1250}".getBytes(StandardCharsets.UTF_8);

    private static StoredHook hook(Map<String, String> headers) {
        return new StoredHook("msg_2Xq7", "acme", "stripe", null, 1_700_000_000_000L, headers, BODY);
    }

    private static Map<String, String> received() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("content-type", "application/json");
        h.put("X-Request-Id", "r-1");
        h.put("authorization", "Bearer inbound");
        h.put("x-evil", "a\r\nx-injected: 1");
        return h;
    }

    @Test
    void theContractHeadersComeFirstThenForwardedThenConfigured() {
        Map<String, String> configured = new LinkedHashMap<>();
        configured.put("Authorization", "Bearer outbound");
        configured.put("x-env", " prod ");
        OutboundHeaders h = OutboundHeaders.of(APP, List.of("Content-Type", "x-request-id", "authorization", "x-missing"),
                configured, WebhookSigner.fromSecret(APP + ".secret", SECRET), "1.2.3");

        assertThat(h.forAttempt(hook(received()), 3, 1_700_000_000L)).containsExactly(
                Map.entry("webhook-id", "msg_2Xq7"),
                Map.entry("webhook-timestamp", "1700000000"),
                // the known vector of WebhookSignerTest: same id, timestamp, body and secret
                Map.entry("webhook-signature", "v1,cMd7VzRRNiT7R3TYbyJpomMhkSmNq6dsaiUBTXsmeVw="),
                Map.entry("sluice-tenant", "acme"),
                Map.entry("sluice-source", "stripe"),
                Map.entry("sluice-attempt", "3"),
                Map.entry("user-agent", "sluice/1.2.3"),
                Map.entry("content-type", "application/json"),
                Map.entry("x-request-id", "r-1"),
                Map.entry("authorization", "Bearer outbound"),
                Map.entry("x-env", "prod"));
    }

    @Test
    void theIdStaysAndTheTimestampAndSignatureFollowEachAttempt() {
        OutboundHeaders h = OutboundHeaders.of(APP, List.of(), Map.of(), WebhookSigner.fromSecret("s", SECRET), "dev");
        Map<String, String> first = asMap(h.forAttempt(hook(Map.of()), 1, 1_700_000_000L));
        Map<String, String> second = asMap(h.forAttempt(hook(Map.of()), 2, 1_700_000_061L));
        assertThat(second.get("webhook-id")).isEqualTo(first.get("webhook-id"));
        assertThat(second.get("webhook-timestamp")).isEqualTo("1700000061");
        assertThat(second.get("sluice-attempt")).isEqualTo("2");
        StandardWebhooksCheck check = new StandardWebhooksCheck(SECRET, 300);
        assertThat(check.genuine("msg_2Xq7", "1700000061", second.get("webhook-signature"), BODY, 1_700_000_061L)).isTrue();
        assertThat(check.genuine("msg_2Xq7", "1700000061", first.get("webhook-signature"), BODY, 1_700_000_061L)).isFalse();
    }

    @Test
    void withoutASignerNoSignatureIsSent() {
        OutboundHeaders h = OutboundHeaders.of(APP, List.of(), Map.of(), null, "dev");
        assertThat(asMap(h.forAttempt(hook(Map.of()), 1, 5L))).doesNotContainKey("webhook-signature").hasSize(6);
    }

    @Test
    void aTracedAttemptSendsItsTraceparentAfterTheUserAgentInPlaceOfAForwardedOrConfiguredOne() {
        String ours = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        OutboundHeaders h = OutboundHeaders.of(APP, List.of("traceparent"), Map.of("TraceParent", "configured"), null, "dev");
        StoredHook traced = hook(Map.of("traceparent", "00-11111111111111111111111111111111-2222222222222222-01"))
                .withTraceparent(ours);
        List<Map.Entry<String, String>> sent = h.forAttempt(traced, 1, 5L);
        assertThat(sent.get(6)).isEqualTo(Map.entry("traceparent", ours));
        assertThat(sent).filteredOn(e -> e.getKey().equals("traceparent")).hasSize(1);
        // untraced (tracing off): the destination's own choices stand, as before
        assertThat(asMap(h.forAttempt(hook(Map.of("traceparent", "received")), 1, 5L)))
                .containsEntry("traceparent", "configured");
    }

    @Test
    void aForwardedValueWithALineBreakIsDroppedNotSent() {
        OutboundHeaders h = OutboundHeaders.of(APP, List.of("x-evil"), Map.of(), null, "dev");
        assertThat(asMap(h.forAttempt(hook(received()), 1, 5L))).doesNotContainKey("x-evil");
    }

    @Test
    void forwardedNamesFoldOnlyAsciiLettersSoTheKelvinSignIsNotAK() {
        OutboundHeaders h = OutboundHeaders.of(APP, List.of("Kelvin"), Map.of(), null, "dev");
        // U+212A KELVIN SIGN: String.toLowerCase(Locale.ROOT) would turn it into an ASCII 'k'
        assertThat("\u212Aelvin".toLowerCase(Locale.ROOT)).isEqualTo("kelvin");
        assertThat(h.forwarded(hook(Map.of("\u212Aelvin", "sign")))).isEmpty();
        assertThat(h.forwarded(hook(Map.of("KELVIN", "upper")))).containsExactly(Map.entry("kelvin", "upper"));
        assertThat(h.forwarded(hook(Map.of("kelvin", "lower")))).containsExactly(Map.entry("kelvin", "lower"));
    }

    @Test
    void reservedOrMalformedNamesAndBadValuesAreConfigErrorsWithTheirKeyPaths() {
        Map<String, String> configured = new LinkedHashMap<>();
        configured.put("Webhook-Signature", "v1,forged");
        configured.put("x-token", "abc\r\nsecret");
        configured.put("bad name", "v");
        assertThatThrownBy(() -> OutboundHeaders.of(APP, List.of("Host", "sluice-attempt", "x:y"), configured, null, "dev"))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.errors()).containsExactly(
                        "destinations.app.forward_headers[0] must not name a header that Sluice sets itself or that"
                                + " frames the request, got \"Host\"",
                        "destinations.app.forward_headers[1] must not name a header that Sluice sets itself or that"
                                + " frames the request, got \"sluice-attempt\"",
                        "destinations.app.forward_headers[2] must be a header name (letters, digits and"
                                + " !#$%&'*+-.^_`|~), got \"x:y\"",
                        "destinations.app.headers.Webhook-Signature must not name a header that Sluice sets itself or"
                                + " that frames the request, got \"Webhook-Signature\"",
                        "destinations.app.headers.x-token must be a header value without control characters, got a"
                                + " 11-character value with one (values are not printed: they may be secrets)",
                        "destinations.app.headers.bad name must be a header name (letters, digits and"
                                + " !#$%&'*+-.^_`|~), got \"bad name\""));
    }

    @Test
    void attemptsCountFromOne() {
        OutboundHeaders h = OutboundHeaders.of(APP, List.of(), Map.of(), null, "dev");
        assertThatThrownBy(() -> h.forAttempt(hook(Map.of()), 0, 5L)).isInstanceOf(IllegalArgumentException.class);
    }

    private static Map<String, String> asMap(List<Map.Entry<String, String>> entries) {
        Map<String, String> m = new LinkedHashMap<>();
        entries.forEach(e -> m.put(e.getKey(), e.getValue()));
        return m;
    }
}
