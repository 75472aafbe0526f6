package org.sluice.edge.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * One of docs/openapi/*.yaml, read from the source tree (the one copy; the build copies it
 * into the jar), and a checker of real responses against it: for a (method, path, status)
 * it finds the operation and the response the description promises, then checks the
 * body against the response's JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) and each
 * described header against its schema. Records which operations were exercised.
 */
final class OpenApiDocument {

    static final Path DIR = Path.of("..", "docs", "openapi");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private static final List<String> METHODS = List.of("get", "put", "post", "delete", "patch", "head", "options");

    final String name;
    final JsonNode root;
    final String text;
    private final Set<String> exercised = new TreeSet<>();

    private OpenApiDocument(String name, String text, JsonNode root) {
        this.name = name;
        this.text = text;
        this.root = root;
    }

    static OpenApiDocument load(String name) {
        try {
            String text = Files.readString(DIR.resolve(name));
            return new OpenApiDocument(name, text, YAML.readTree(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------ references

    /** The node a local reference ({@code #/components/...}) names; fails when it names nothing. */
    JsonNode target(String ref) {
        if (!ref.startsWith("#/")) {
            throw new AssertionError(name + ": only local references are used, got " + ref);
        }
        JsonNode node = root.at(ref.substring(1));
        if (node.isMissingNode()) {
            throw new AssertionError(name + ": $ref " + ref + " names nothing");
        }
        return node;
    }

    /** Every {@code $ref} in the document. */
    List<String> refs() {
        List<String> out = new ArrayList<>();
        collectRefs(root, out);
        return out;
    }

    private static void collectRefs(JsonNode node, List<String> out) {
        if (node.isObject() && node.get("$ref") instanceof TextNode ref) {
            out.add(ref.asText());
        }
        node.forEach(child -> collectRefs(child, out));
    }

    /** {@code node} with its own {@code $ref} followed (repeatedly). */
    JsonNode deref(JsonNode node) {
        while (node.isObject() && node.has("$ref")) {
            node = target(node.get("$ref").asText());
        }
        return node;
    }

    /** {@code node} with every {@code $ref} replaced by what it names (the descriptions have no cycles). */
    JsonNode inline(JsonNode node) {
        if (node.isObject()) {
            ObjectNode out = JSON.createObjectNode();
            if (node.has("$ref")) {
                JsonNode resolved = inline(target(node.get("$ref").asText()));
                if (!resolved.isObject()) {
                    return resolved;
                }
                out.setAll((ObjectNode) resolved);
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getKey().equals("$ref")) {
                    out.set(e.getKey(), inline(e.getValue()));
                }
            }
            return out;
        }
        if (node.isArray()) {
            var out = JSON.createArrayNode();
            node.forEach(child -> out.add(inline(child)));
            return out;
        }
        return node;
    }

    // ------------------------------------------------------------------ operations

    /** "METHOD /template" of every operation the document describes. */
    Set<String> operations() {
        Set<String> out = new TreeSet<>();
        root.get("paths").fields().forEachRemaining(p -> {
            for (String m : METHODS) {
                if (p.getValue().has(m)) {
                    out.add(m.toUpperCase(Locale.ROOT) + " " + p.getKey());
                }
            }
        });
        return out;
    }

    Set<String> exercised() {
        return exercised;
    }

    /** The path template {@code path} falls under, or null. */
    String template(String path) {
        for (Iterator<String> it = root.get("paths").fieldNames(); it.hasNext(); ) {
            String template = it.next();
            String regex = "\\Q" + template.replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q") + "\\E";
            if (Pattern.matches(regex, path)) {
                return template;
            }
        }
        return null;
    }

    /**
     * Checks a real answer to {@code method path} (no query string): the path and method are
     * described, the status is one the operation lists, and body and headers match.
     */
    void check(String method, String path, Http.Response response) {
        String template = template(path);
        if (template == null) {
            throw new AssertionError(name + ": no path of the description matches " + path);
        }
        JsonNode operation = root.get("paths").get(template).get(method.toLowerCase(Locale.ROOT));
        if (operation == null) {
            throw new AssertionError(name + ": " + template + " describes no " + method);
        }
        JsonNode described = operation.get("responses").get(Integer.toString(response.status()));
        if (described == null) {
            throw new AssertionError(name + ": " + method + " " + template + " does not list status "
                    + response.status() + "; the server answered " + response);
        }
        exercised.add(method + " " + template);
        checkAgainst(deref(described), method + " " + path, response);
    }

    /** Checks an answer against {@code #/components/responses/<component>} (a method or path the description does not list). */
    void checkUndescribed(String component, String what, Http.Response response) {
        checkAgainst(target("#/components/responses/" + component), what, response);
    }

    private void checkAgainst(JsonNode described, String what, Http.Response response) {
        String where = name + ": " + what + " -> " + response.status() + ": ";
        JsonNode headers = described.path("headers");
        for (Iterator<Map.Entry<String, JsonNode>> it = headers.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> h = it.next();
            JsonNode header = deref(h.getValue());
            String value = response.header(h.getKey());
            if (value == null) {
                if (header.path("required").asBoolean(false)) {
                    throw new AssertionError(where + "required header " + h.getKey() + " is missing: " + response);
                }
                continue;
            }
            JsonNode schema = inline(header.get("schema"));
            JsonNode instance = schema.path("type").asText().equals("integer") && value.matches("-?[0-9]+")
                    ? JSON.getNodeFactory().numberNode(Long.parseLong(value)) : TextNode.valueOf(value);
            validate(schema, instance, where + "header " + h.getKey());
        }
        JsonNode content = described.get("content");
        String contentType = response.header("content-type");
        if (content == null) {
            if (!response.body().isEmpty()) {
                throw new AssertionError(where + "no body is described, got " + response.body());
            }
            return;
        }
        if (contentType == null) {
            throw new AssertionError(where + "no Content-Type: " + response);
        }
        String mediaType = contentType.split(";")[0].strip();
        JsonNode media = content.get(mediaType);
        if (media == null) {
            throw new AssertionError(where + "Content-Type " + mediaType + " is not among " + content.fieldNames().next()
                    + "...: " + response);
        }
        if (mediaType.equals("application/json")) {
            JsonNode body;
            try {
                body = JSON.readTree(response.body());
            } catch (IOException e) {
                throw new AssertionError(where + "the body is not JSON: " + response.body(), e);
            }
            validate(inline(media.get("schema")), body, where + "body " + response.body());
        }
    }

    /** Compiles {@code schema} (a schema the validator cannot read fails here). */
    static void compile(JsonNode schema) {
        SCHEMAS.getSchema(schema).initializeValidators();
    }

    static void validate(JsonNode schema, JsonNode instance, String what) {
        Set<ValidationMessage> problems = SCHEMAS.getSchema(schema).validate(instance);
        if (!problems.isEmpty()) {
            throw new AssertionError(what + " does not match its schema: " + problems);
        }
    }
}
