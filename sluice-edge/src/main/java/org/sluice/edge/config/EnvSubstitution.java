package org.sluice.edge.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Problems;
import org.sluice.edge.settings.Substituted;

/**
 * Turns a parsed YAML tree into plain Java values (maps in file order, lists, strings,
 * numbers, booleans, null), substituting {@code ${VAR}} and {@code ${VAR:-default}} in
 * every string value (keys are left alone).
 *
 * <ul>
 *   <li>{@code ${VAR}}: the variable's value; unset is an error naming the key path.</li>
 *   <li>{@code ${VAR:-default}}: the default when the variable is unset or empty.</li>
 *   <li><code>$${</code> writes a literal <code>${</code>; any other <code>$</code> is literal.</li>
 * </ul>
 * Substitution happens after YAML parsing, so a value from the environment can never
 * change the file's structure, whatever characters it holds.
 */
final class EnvSubstitution {

    private final Map<String, String> env;
    private final Problems problems;

    EnvSubstitution(Map<String, String> env, Problems problems) {
        this.env = env;
        this.problems = problems;
    }

    Object convert(JsonNode node, String path) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        if (node.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> e = fields.next();
                map.put(e.getKey(), convert(e.getValue(), Paths.child(path, e.getKey())));
            }
            return map;
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>(node.size());
            for (int i = 0; i < node.size(); i++) {
                list.add(convert(node.get(i), Paths.index(path, i)));
            }
            return list;
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isIntegralNumber()) {
            return node.canConvertToLong() ? (Object) node.longValue() : node.bigIntegerValue();
        }
        if (node.isFloatingPointNumber()) {
            return node.isBigDecimal() ? node.decimalValue() : (Object) node.doubleValue();
        }
        if (node.isTextual()) {
            return substitute(node.textValue(), path);
        }
        if (node.isBinary()) {
            return node.asText();
        }
        return node.asText();
    }

    /** The string with references replaced: a {@link String} when it had none, else a {@link Substituted}. */
    Object substitute(String text, String path) {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        boolean referenced = false;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '$' && text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            } else if (c == '$' && text.startsWith("${", i)) {
                int close = text.indexOf('}', i + 2);
                if (close < 0) {
                    problems.unresolved(path, path + " has a ${ with no closing } (write $${ for a literal ${)");
                    return text;
                }
                String body = text.substring(i + 2, close);
                int sep = body.indexOf(":-");
                String name = sep < 0 ? body : body.substring(0, sep);
                if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    problems.unresolved(path, path + " refers to a variable with an invalid name (a name is letters, digits"
                            + " and _, not starting with a digit; write $${ for a literal ${)");
                    return text;
                }
                String value = env.get(name);
                if (sep >= 0) {
                    out.append(value == null || value.isEmpty() ? body.substring(sep + 2) : value);
                } else if (value == null) {
                    problems.unresolved(path, path + " uses ${" + name + "}, which is not set"
                            + " (write ${" + name + ":-default} to give it a default)");
                    return text;
                } else {
                    out.append(value);
                }
                referenced = true;
                i = close + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return referenced ? new Substituted(out.toString(), text) : out.toString();
    }
}
