package org.sluice.edge.verify;

/**
 * The character rules of HTTP (RFC 9110, section 5.6.2 and 5.5), the one copy of each: a
 * token ({@code tchar}: letters, digits and {@code !#$%&'*+-.^_`|~}), which is what a
 * header name or a method must be, and the bytes a field value may hold. Used where a
 * header name is checked in the config (a verifier's header, a dedupe key's header) and on
 * every request ({@code http.RequestSyntaxHandler}, {@code http.RefusalFastPath}).
 * Allocation-free; safe from any thread.
 */
public final class HttpTokens {

    /** {@code TCHAR[c]} for c below 128; nothing at or above 128 is a tchar. */
    private static final boolean[] TCHAR = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[c - 'a' + 'A'] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    private HttpTokens() {
    }

    /** True when {@code c} (a char, or a byte read signed or unsigned) is a {@code tchar}. */
    public static boolean isTchar(int c) {
        return c >= 0 && c < TCHAR.length && TCHAR[c];
    }

    /** True when {@code s} is a token: at least one character, every one a {@code tchar}. Null is not. */
    public static boolean isToken(CharSequence s) {
        if (s == null || s.length() == 0) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!isTchar(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when {@code c} (0 to 255) may stand in a field value: visible characters,
     * obs-text, space and tab; no other control byte (NUL, CR, LF, DEL...).
     */
    public static boolean isFieldValueByte(int c) {
        return (c >= 0x20 || c == '\t') && c != 0x7f && c <= 0xff;
    }

    /**
     * True when {@code s} is the lower-case header name {@code lower} with ASCII letters
     * folded, as header names compare. Only A-Z fold: unlike {@code s.toLowerCase(ROOT)},
     * which turns the Kelvin sign U+212A into {@code k}, no other character can match a
     * token's. Made without a copy.
     */
    public static boolean isAsciiLowerCaseOf(String lower, CharSequence s) {
        if (lower.length() != s.length()) {
            return false;
        }
        for (int i = 0; i < lower.length(); i++) {
            char c = s.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                c = (char) (c + ('a' - 'A'));
            }
            if (c != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
