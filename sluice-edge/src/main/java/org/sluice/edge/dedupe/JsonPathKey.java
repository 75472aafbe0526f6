package org.sluice.edge.dedupe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import org.sluice.edge.verify.HeaderLookup;

/**
 * The key is the value at a dotted path of object fields in a JSON body, read with Jackson's
 * streaming parser: fields off the path are skipped without being materialised, and parsing
 * stops as soon as the leaf is reached, so the cost is bounded by the bytes before the leaf
 * and no tree is built. Consequences, by design: the first of duplicate field names wins,
 * and bytes after the leaf are not checked (a body broken after its id still has a key).
 *
 * <p>Leaf rules: a non-empty string is the key as is, an integer its decimal text as written; an
 * empty string, a string that is not well-formed Unicode (see {@link #unambiguous}), a float,
 * boolean, null, object or array is no key, as is a missing path, a non-object on the path
 * and a body that is not JSON before the leaf.
 *
 * <p>Field-name canonicalisation is off so a flood of invented field names cannot grow the
 * factory's shared symbol table; nesting depth and token lengths keep Jackson's default
 * {@code StreamReadConstraints}.
 */
final class JsonPathKey implements DedupeKeyExtractor {

    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .build();

    private final String[] path;

    JsonPathKey(String[] path) {
        this.path = path.clone();
    }

    @Override
    public String extract(HeaderLookup headers, byte[] body) {
        String leaf = find(body);
        return leaf == null ? null : DedupeKeys.bounded(leaf);
    }

    private String find(byte[] body) {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            int depth = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (!path[depth].equals(name)) {
                    p.skipChildren();
                    continue;
                }
                if (depth == path.length - 1) {
                    if (value == JsonToken.VALUE_NUMBER_INT) {
                        return p.getText();
                    }
                    if (value != JsonToken.VALUE_STRING) {
                        return null;
                    }
                    String text = p.getText();
                    return text.isEmpty() || !unambiguous(text) ? null : text;
                }
                if (value != JsonToken.START_OBJECT) {
                    return null;
                }
                depth++;
            }
            return null; // END_OBJECT: the path is not in this object
        } catch (IOException notJson) {
            return null;
        }
    }

    /**
     * False for text holding U+FFFD (Jackson's rendering of malformed UTF-8) or an unpaired
     * surrogate (a JSON escape can produce one; it has no UTF-8 form). Two different broken
     * ids would otherwise collapse onto one stored key and the second hook would be dropped
     * as a duplicate; such a leaf (rare, even when legitimate) is no key instead.
     */
    static boolean unambiguous(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\uFFFD') {
                return false;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
