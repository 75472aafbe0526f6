package org.sluice.edge.settings;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Reading one value of the converted tree as a type, and rendering a value for a message.
 * A number or boolean key accepts a {@link Substituted} string whose text parses as one;
 * a plain string never counts as a number (nothing is inferred from quoting).
 */
public final class Values {

    private static final int MAX_RENDERED = 64;

    private Values() {
    }

    /** The integer {@code raw} denotes ({@code 5}, {@code 5.0}, or {@code "5"} from a variable), else null. */
    public static BigInteger integer(Object raw) {
        if (raw instanceof Long || raw instanceof Integer) {
            return BigInteger.valueOf(((Number) raw).longValue());
        }
        if (raw instanceof BigInteger b) {
            return b;
        }
        if (raw instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                return null;
            }
            return exact(new BigDecimal(d));
        }
        if (raw instanceof BigDecimal d) {
            return exact(d);
        }
        if (raw instanceof Substituted s && s.value().trim().matches("-?[0-9]{1,30}")) {
            return new BigInteger(s.value().trim());
        }
        return null;
    }

    /** The finite number {@code raw} denotes, else null. */
    public static Double number(Object raw) {
        double d;
        if (raw instanceof Number n) {
            d = n.doubleValue();
        } else if (raw instanceof Substituted s && s.value().trim().matches("-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?")) {
            d = Double.parseDouble(s.value().trim());
        } else {
            return null;
        }
        return Double.isFinite(d) ? d : null;
    }

    /** The boolean {@code raw} denotes ({@code true}, or {@code "true"} from a variable), else null. */
    public static Boolean bool(Object raw) {
        if (raw instanceof Boolean b) {
            return b;
        }
        if (raw instanceof Substituted s) {
            String t = s.value().trim();
            if (t.equals("true")) {
                return Boolean.TRUE;
            }
            if (t.equals("false")) {
                return Boolean.FALSE;
            }
        }
        return null;
    }

    /** The text of a string value (substituted or not), else null. */
    public static String string(Object raw) {
        if (raw instanceof String s) {
            return s;
        }
        if (raw instanceof Substituted s) {
            return s.value();
        }
        return null;
    }

    /**
     * A value as it reads in a message: strings quoted, a substituted string followed by
     * where it came from, collections by kind. Long values are cut short.
     */
    public static String render(Object raw) {
        if (raw == null) {
            return "null";
        }
        if (raw instanceof Substituted s) {
            return quote(s.value()) + " (from " + cut(s.expression()) + ")";
        }
        if (raw instanceof String s) {
            return quote(s);
        }
        if (raw instanceof Map<?, ?>) {
            return "a mapping";
        }
        if (raw instanceof List<?>) {
            return "a list";
        }
        if (raw instanceof BigDecimal d) {
            return cut(d.toString());
        }
        return cut(String.valueOf(raw));
    }

    /**
     * A secret as it may appear in a message: never its text, only its length and, when it
     * came from a variable, which one.
     */
    public static String renderSecret(Object raw) {
        String text = string(raw);
        String shape = text == null ? render(raw) : "a " + text.length() + "-character value";
        String from = raw instanceof Substituted s ? " from " + cut(s.expression()) : "";
        return shape + from + " (redacted: secrets are never printed)";
    }

    public static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length() && i < MAX_RENDERED; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (s.length() > MAX_RENDERED) {
            out.append("...");
        }
        return out.append('"').toString();
    }

    private static String cut(String s) {
        return s.length() <= MAX_RENDERED ? s : s.substring(0, MAX_RENDERED) + "...";
    }

    private static BigInteger exact(BigDecimal d) {
        try {
            return d.toBigIntegerExact();
        } catch (ArithmeticException fractional) {
            return null;
        }
    }
}
