package org.sluice.edge.dedupe;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;

/**
 * Fuzz target for the {@code {json: PATH}} dedupe key: any dotted path, any body. The
 * contract: {@link DedupeKeys#create} refuses a bad path with an {@link
 * IllegalArgumentException}; extraction never throws, gives null or a key of at most
 * {@value DedupeKeys#MAX_KEY_BYTES} bytes of UTF-8 (or its {@code sha256:} form), and
 * agrees with a full tree parse wherever the body is strict JSON (valid UTF-8 included): a non-empty,
 * well-formed string leaf is the key (bounded), a missing path is no key.
 */
@Tag("fuzz")
class JsonPathKeyFuzzTest {

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private static boolean validUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @FuzzTest(maxDuration = "30s")
    void jsonKeyIsBoundedAndAgreesWithATreeParse(FuzzedDataProvider data) {
        String path = data.consumeBoolean() ? data.pickValue(new String[] {"id", "data.id", "a.b.c"}) : data.consumeString(24);
        byte[] body = data.consumeRemainingAsBytes();
        DedupeKeyExtractor extractor;
        try {
            extractor = DedupeKeys.create(new DedupeSpec(DedupeSpec.Kind.JSON, path), "sources.fuzz.dedupe");
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).startsWith("sources.fuzz.dedupe.json ");
            return;
        }
        String key = extractor.extract(name -> null, body);
        if (key != null) {
            assertThat(key).isNotEmpty();
            assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(DedupeKeys.MAX_KEY_BYTES);
        }

        if (!validUtf8(body)) {
            // not JSON (RFC 8259 section 8.1), and no oracle: once a name such as "id" is in the
            // mapper's symbol table, Jackson reads the name "\xFFid" as "id" instead of refusing
            // the byte (as a fresh mapper does); the extractor matches names byte for byte
            return;
        }
        JsonNode tree;
        try {
            tree = STRICT.readTree(body);
        } catch (IOException notStrictJson) {
            return;
        }
        if (tree == null || !tree.isObject()) {
            assertThat(key).isNull();
            return;
        }
        JsonNode leaf = tree;
        for (String field : path.split("\\.", -1)) {
            leaf = leaf.isObject() ? leaf.get(field) : null;
            if (leaf == null) {
                break;
            }
        }
        if (leaf == null) {
            assertThat(key).isNull();
        } else if (leaf.isTextual() && !leaf.textValue().isEmpty() && JsonPathKey.unambiguous(leaf.textValue())) {
            assertThat(key).isEqualTo(DedupeKeys.bounded(leaf.textValue()));
        } else if (!leaf.isIntegralNumber()) {
            assertThat(key).isNull();
        }
    }
}
