package org.sluice.edge.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sluice.edge.dedupe.DedupeSpec.Kind;
import org.sluice.edge.verify.HeaderLookup;

class DedupeKeysTest {

    static final byte[] NO_BODY = new byte[0];

    static HeaderLookup headers(String... nameValues) {
        Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < nameValues.length; i += 2) {
            map.put(nameValues[i], nameValues[i + 1]);
        }
        return map::get;
    }

    static String json(String path, String body) {
        return DedupeKeys.create(new DedupeSpec(Kind.JSON, path)).extract(headers(), body.getBytes(StandardCharsets.UTF_8));
    }

    static String sha256Hex(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    // ---------------------------------------------------------------- header kinds

    @ParameterizedTest
    @CsvSource({
            "GITHUB, X-GitHub-Delivery",
            "STANDARD_WEBHOOKS, webhook-id",
            "SVIX, svix-id",
            "SHOPIFY, X-Shopify-Webhook-Id",
    })
    void providerHeaders(Kind kind, String header) {
        DedupeKeyExtractor x = DedupeKeys.create(new DedupeSpec(kind, null));
        assertThat(x.extract(headers(header, "72d3162e-cc78-11e3-81ab-4c9367dc0958"), NO_BODY))
                .isEqualTo("72d3162e-cc78-11e3-81ab-4c9367dc0958");
        assertThat(x.extract(headers(header.toLowerCase(java.util.Locale.ROOT), "k1"), NO_BODY)).isEqualTo("k1");
        assertThat(x.extract(headers("X-Other", "k1"), NO_BODY)).isNull();
        assertThat(x.extract(headers(header, ""), NO_BODY)).isNull();
        assertThat(x.extract(headers(header, "  "), NO_BODY)).isNull();
    }

    @Test
    void configuredHeader() {
        DedupeKeyExtractor x = DedupeKeys.create(new DedupeSpec(Kind.HEADER, "X-Event-Id"));
        assertThat(x.extract(headers("x-event-id", "ev-9"), "{\"id\":\"other\"}".getBytes(StandardCharsets.UTF_8))).isEqualTo("ev-9");
        assertThat(x.extract(headers(), NO_BODY)).isNull();
        assertThat(x.extract(headers("X-Event-Id", ""), NO_BODY)).isNull();
    }

    @Test
    void noneNeverHasAKey() {
        DedupeKeyExtractor x = DedupeKeys.create(DedupeSpec.NONE);
        assertThat(x.extract(headers("X-GitHub-Delivery", "d", "webhook-id", "w"), "{\"id\":\"evt\"}".getBytes(StandardCharsets.UTF_8)))
                .isNull();
    }

    // ---------------------------------------------------------------- long keys

    @Test
    void keysUpTo200BytesAreKeptLongerOnesHashed() throws Exception {
        DedupeKeyExtractor x = DedupeKeys.create(new DedupeSpec(Kind.HEADER, "X-Event-Id"));
        String exactly200 = "k".repeat(200);
        String over = "k".repeat(201);
        assertThat(x.extract(headers("X-Event-Id", exactly200), NO_BODY)).isEqualTo(exactly200);
        assertThat(x.extract(headers("X-Event-Id", over), NO_BODY)).isEqualTo("sha256:" + sha256Hex(over)).hasSize(71);
    }

    @Test
    void theLimitIsInUtf8BytesNotCharacters() throws Exception {
        String hundredE = "\u00e9".repeat(100);   // 100 chars, 200 bytes
        String hundredOneE = "\u00e9".repeat(101); // 101 chars, 202 bytes
        assertThat(DedupeKeys.bounded(hundredE)).isEqualTo(hundredE);
        assertThat(DedupeKeys.bounded(hundredOneE)).isEqualTo("sha256:" + sha256Hex(hundredOneE));
        String emoji = "\uD83D\uDE00".repeat(51);    // 102 chars, 204 bytes
        assertThat(DedupeKeys.bounded(emoji)).startsWith("sha256:");
        assertThat(DedupeKeys.bounded("\uD83D\uDE00".repeat(50))).isEqualTo("\uD83D\uDE00".repeat(50)); // 200 bytes
    }

    @Test
    void longJsonKeysAreHashedToo() throws Exception {
        String id = "evt_" + "x".repeat(300);
        assertThat(json("id", "{\"id\":\"" + id + "\"}")).isEqualTo("sha256:" + sha256Hex(id));
    }

    // ---------------------------------------------------------------- stripe and json

    @Test
    void stripeIsTheTopLevelId() {
        DedupeKeyExtractor x = DedupeKeys.create(new DedupeSpec(Kind.STRIPE, null));
        byte[] body = "{\"object\":\"event\",\"data\":{\"object\":{\"id\":\"pi_1\"}},\"id\":\"evt_1NG8Du2eZvKYlo2CUI79vXWy\"}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(x.extract(headers(), body)).isEqualTo("evt_1NG8Du2eZvKYlo2CUI79vXWy");
        assertThat(x.extract(headers(), "{\"data\":{\"id\":\"pi_1\"}}".getBytes(StandardCharsets.UTF_8))).isNull();
    }

    @Test
    void dottedPathStringLeaf() {
        assertThat(json("event.id", "{\"type\":\"x\",\"event\":{\"meta\":{\"id\":\"no\"},\"id\":\"ev_42\"}}")).isEqualTo("ev_42");
        assertThat(json("a.b.c", "{\"a\":{\"b\":{\"c\":\"deep\"}}}")).isEqualTo("deep");
        assertThat(json("event.id", "{\"event\":{\"id\":\"caf\\u00e9 \\\"q\\\"\"}}")).isEqualTo("caf\u00e9 \"q\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"event\":{\"id\":42}}                     | 42",
            "{\"event\":{\"id\":-7}}                     | -7",
            "{\"event\":{\"id\":0}}                      | 0",
            "{\"event\":{\"id\":123456789012345678901234567890}} | 123456789012345678901234567890",
    })
    void integerLeafIsItsDecimalText(String body, String key) {
        assertThat(json("event.id", body)).isEqualTo(key);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"event\":{\"id\":4.2}}",            // float
            "{\"event\":{\"id\":1e3}}",            // float in exponent form
            "{\"event\":{\"id\":true}}",           // boolean
            "{\"event\":{\"id\":null}}",           // null
            "{\"event\":{\"id\":{\"v\":1}}}",      // object
            "{\"event\":{\"id\":[\"a\"]}}",        // array
            "{\"event\":{\"id\":\"\"}}",           // empty string
            "{\"event\":{\"other\":\"x\"}}",       // missing leaf
            "{\"event\":\"ev_42\"}",               // non-object on the path
            "{\"id\":\"ev_42\"}",                  // missing intermediate
            "[{\"event\":{\"id\":\"x\"}}]",        // root not an object
            "\"event\"",                           // root a string
            "not json at all",                     // invalid JSON
            "{\"event\":{\"id\"",                  // truncated before the leaf
            "{\"event\" {\"id\":\"x\"}}",          // broken before the leaf
            "{\"other\":[1,2,}, \"event\":{\"id\":\"x\"}}", // broken in a skipped field
    })
    void anythingElseIsNoKey(String body) {
        assertThat(json("event.id", body)).isNull();
    }

    @Test
    void emptyBodyIsNoKey() {
        assertThat(json("event.id", "")).isNull();
        assertThat(DedupeKeys.create(new DedupeSpec(Kind.STRIPE, null)).extract(headers(), NO_BODY)).isNull();
    }

    @Test
    void invalidUtf8IsNoKeySoTwoBrokenIdsNeverCollide() {
        DedupeKeyExtractor stripe = DedupeKeys.create(new DedupeSpec(Kind.STRIPE, null));
        byte[] one = {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        byte[] two = {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xC4, (byte) 0x28, '"', '}'};
        assertThat(stripe.extract(headers(), one)).isNull();
        assertThat(stripe.extract(headers(), two)).isNull();
        byte[] valid = "{\"id\":\"\u00e9v\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(stripe.extract(headers(), valid)).isEqualTo("\u00e9v");
    }

    @Test
    void loneSurrogateEscapesAreNoKey() {
        assertThat(json("id", "{\"id\":\"\\ud800x\"}")).isNull();
        assertThat(json("id", "{\"id\":\"x\\udc00\"}")).isNull();
        assertThat(json("id", "{\"id\":\"\\ud83d\\ude00\"}")).isEqualTo("\uD83D\uDE00");
    }

    @Test
    void firstOfDuplicateFieldsWins() {
        assertThat(json("id", "{\"id\":\"first\",\"id\":\"second\"}")).isEqualTo("first");
    }

    @Test
    void parsingStopsAtTheLeaf() {
        // The bytes after the key are never read: a large or broken tail costs nothing.
        assertThat(json("id", "{\"id\":\"evt_1\", this is not json")).isEqualTo("evt_1");
    }

    @Test
    void skipsLargeAndDeepSiblingsWithoutMaterialisingThem() {
        StringBuilder body = new StringBuilder("{\"blob\":[");
        for (int i = 0; i < 20_000; i++) {
            body.append(i == 0 ? "" : ",").append("{\"n\":").append(i).append(",\"s\":\"").append("y".repeat(20)).append("\"}");
        }
        body.append("],\"deep\":").append("[".repeat(200)).append("]".repeat(200)).append(",\"event\":{\"id\":\"found\"}}");
        assertThat(json("event.id", body.toString())).isEqualTo("found");
    }

    // ---------------------------------------------------------------- body_sha256

    static final DedupeKeyExtractor BODY = DedupeKeys.create(new DedupeSpec(Kind.BODY_SHA256, null));

    @Test
    void bodySha256IsTheLowercaseHexDigestOfTheRawBody() {
        // FIPS 180-2 test vectors: "abc" and the empty message
        assertThat(BODY.extract(headers(), "abc".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(BODY.extract(headers(), NO_BODY))
                .as("an empty body has a key too")
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void bodySha256NeverReadsAHeader() {
        byte[] body = "{\"id\":\"evt_1\"}".getBytes(StandardCharsets.UTF_8);
        String key = BODY.extract(headers(), body);
        assertThat(BODY.extract(headers("X-GitHub-Delivery", "fresh-1", "X-Event-Id", "e1", "webhook-id", "w"), body))
                .isEqualTo(key);
        assertThat(BODY.extract(headers("X-GitHub-Delivery", "fresh-2"), body)).isEqualTo(key);
    }

    @Test
    void bodySha256IsOverTheBytesAsReceived() throws Exception {
        // JSON-equal bodies that differ in a byte are different hooks: nothing is parsed or normalised
        String compact = "{\"id\":\"evt_1\"}";
        String spaced = "{\"id\": \"evt_1\"}";
        assertThat(BODY.extract(headers(), compact.getBytes(StandardCharsets.UTF_8))).isEqualTo(sha256Hex(compact));
        assertThat(BODY.extract(headers(), spaced.getBytes(StandardCharsets.UTF_8))).isEqualTo(sha256Hex(spaced))
                .isNotEqualTo(sha256Hex(compact));
        byte[] binary = {(byte) 0xC3, (byte) 0x28, 0, (byte) 0xFF};
        assertThat(BODY.extract(headers(), binary))
                .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(binary)));
    }

    @Test
    void bodySha256KeysAre64BytesAndStoredAsIs() {
        byte[] big = new byte[8_000_000];
        java.util.Arrays.fill(big, (byte) 'x');
        for (byte[] body : new byte[][] {NO_BODY, "a".getBytes(StandardCharsets.US_ASCII), big}) {
            String key = BODY.extract(headers(), body);
            assertThat(key).hasSize(64).matches("[0-9a-f]{64}");
            assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(DedupeKeys.MAX_KEY_BYTES);
            assertThat(DedupeKeys.bounded(key)).isSameAs(key);
        }
    }

    @Test
    void bodySha256IsSafeToShareBetweenThreads() throws Exception {
        byte[][] bodies = new byte[8][];
        String[] expected = new String[bodies.length];
        for (int i = 0; i < bodies.length; i++) {
            bodies[i] = ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8);
            expected[i] = sha256Hex("{\"n\":" + i + "}");
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            java.util.List<java.util.concurrent.Future<Boolean>> all = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                all.add(pool.submit(() -> {
                    for (int round = 0; round < 2_000; round++) {
                        int i = round % bodies.length;
                        if (!expected[i].equals(BODY.extract(headers(), bodies[i]))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (java.util.concurrent.Future<Boolean> f : all) {
                assertThat(f.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // ---------------------------------------------------------------- factory errors

    @Test
    void headerKindNeedsAHeaderName() {
        assertThatThrownBy(() -> DedupeKeys.create(new DedupeSpec(Kind.HEADER, null), "sources.open.dedupe"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sources.open.dedupe.header must be an HTTP header name, got null");
        assertThatThrownBy(() -> DedupeKeys.create(new DedupeSpec(Kind.HEADER, "X Event Id"), "sources.open.dedupe"))
                .hasMessage("sources.open.dedupe.header must be an HTTP header name, got \"X Event Id\"");
    }

    @Test
    void jsonKindNeedsADottedPath() {
        for (String bad : new String[] {"", ".", "a..b", ".a", "a."}) {
            assertThatThrownBy(() -> DedupeKeys.create(new DedupeSpec(Kind.JSON, bad), "sources.custom.dedupe"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("sources.custom.dedupe.json must be a dotted path of non-empty field names, got \"" + bad + "\"");
        }
        assertThatThrownBy(() -> DedupeKeys.create(new DedupeSpec(Kind.JSON, null)))
                .hasMessage("dedupe.json must be a dotted path of non-empty field names, got null");
    }

    @Test
    void kindIsRequired() {
        assertThatThrownBy(() -> DedupeKeys.create(new DedupeSpec(null, null), "sources.x.dedupe"))
                .hasMessage("sources.x.dedupe must be one of github, standard_webhooks, svix, shopify, stripe, body_sha256, none, "
                        + "{header: NAME}, {json: PATH}, got null");
    }
}
