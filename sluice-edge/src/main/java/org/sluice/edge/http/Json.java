package org.sluice.edge.http;

/** The one JSON encoding the HTTP layer needs: a string literal, escaped. */
final class Json {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {
    }

    static String string(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                out.append("\\u00").append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
