package org.sluice.edge.http;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.sluice.edge.verify.HttpTokens;

/**
 * The received headers a source's hooks are stored with (its {@code store_headers}): every
 * header, or only those named here, compared with ASCII letters folded. The names come
 * from the server's wiring: the verification scheme's headers, the dedupe header, the
 * {@code forward_headers} of the destinations the source delivers to, {@code Content-Type},
 * and any the configuration adds. A header not kept never reaches the store, the admin API
 * or the console (an {@code Authorization} or {@code Cookie} a sender added, say).
 *
 * <p>Immutable and thread-safe.
 */
public final class StoredHeaderNames {

    /** Every header is stored, as received. */
    public static final StoredHeaderNames ALL = new StoredHeaderNames(null);

    /** Lower-case names kept; null: every one. */
    private final String[] lower;

    private StoredHeaderNames(String[] lower) {
        this.lower = lower;
    }

    /** Only the headers named in {@code names} (any case) are stored. */
    public static StoredHeaderNames only(Collection<String> names) {
        List<String> out = new ArrayList<>();
        for (String name : names) {
            String l = name.toLowerCase(Locale.ROOT);
            if (!out.contains(l)) {
                out.add(l);
            }
        }
        return new StoredHeaderNames(out.toArray(String[]::new));
    }

    /** True when a header named {@code name} is stored. */
    public boolean keeps(CharSequence name) {
        if (lower == null) {
            return true;
        }
        for (String l : lower) {
            if (HttpTokens.isAsciiLowerCaseOf(l, name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return lower == null ? "all" : String.join(", ", lower);
    }
}
