package org.sluice.edge.delivery;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.sluice.edge.delivery.targets.Target;

/**
 * The one filter every attempt's error text passes before it reaches {@code last_error},
 * the store, the admin API, the console or a log line: each of the destination's configured
 * secrets ({@link Target#secrets()}: URL user info and its password, broker passwords and
 * tokens, SASL settings; and the values of its configured headers) is replaced by
 * {@value #MASK} wherever it occurs, and so is the user info of any URL in the text, which a
 * client library may print as it was given.
 *
 * <p>Made once per destination by each transport; {@link #redact} is called only on
 * failures, so a plain scan per secret is enough.
 */
public final class SecretRedactor {

    public static final String MASK = "***";
    /** Secrets shorter than this are not searched for: masking every "a" would say where they are. */
    static final int MIN_LENGTH = 3;
    /** {@code scheme://user:pass@}: a URL's user info, in whatever text a library wrote. */
    private static final Pattern URL_USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^/@\\s\\[\\]]+@");

    private final List<String> secrets;

    private SecretRedactor(Collection<String> secrets) {
        Set<String> all = new LinkedHashSet<>();
        for (String s : secrets) {
            if (s != null && s.length() >= MIN_LENGTH) {
                all.add(s);
                String decoded = decoded(s);
                if (decoded.length() >= MIN_LENGTH) {
                    all.add(decoded);
                }
            }
        }
        List<String> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparingInt(String::length).reversed()); // a longer secret before one it holds
        this.secrets = List.copyOf(sorted);
    }

    /** The redactor for {@code destination}: its target's secrets and its configured header values. */
    public static SecretRedactor of(Destination destination) {
        List<String> all = new ArrayList<>(destination.target().secrets());
        all.addAll(destination.headers().configuredValues());
        return new SecretRedactor(all);
    }

    /** A redactor for exactly {@code secrets} (and URL user info). */
    public static SecretRedactor of(Collection<String> secrets) {
        return new SecretRedactor(secrets);
    }

    /** {@code text} with every known secret and every URL's user info masked; null stays null. */
    public String redact(String text) {
        if (text == null) {
            return null;
        }
        String out = URL_USER_INFO.matcher(text).replaceAll("$1" + MASK + "@");
        for (String s : secrets) {
            out = out.replace(s, MASK);
        }
        return out;
    }

    private static String decoded(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notEncoded) {
            return s;
        }
    }
}
