package org.sluice.edge.route;

/** Writes a string as a double-quoted scalar of the config's flow form, which YAML reads back to the same string. */
final class Texts {

    private Texts() {
    }

    /** True when every character of {@code s} is an ASCII letter or digit or one of {@code others}. */
    static boolean alnumOr(String s, String others) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || others.indexOf(c) >= 0)) {
                return false;
            }
        }
        return true;
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                out.append(c).append(s.charAt(++i)); // a pair: one printable character beyond U+FFFF
            } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || c >= 0xfffe
                    || c == 0xfeff || Character.isSurrogate(c)) {
                // what YAML refuses unescaped, would fold as a line break, or drop as a byte order mark
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
