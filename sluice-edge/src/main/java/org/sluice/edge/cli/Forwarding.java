package org.sluice.edge.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * {@code serve --forward-to URL}: one {@code http} destination per URL, named
 * {@code forward-1}, {@code forward-2}, ..., signed (Standard Webhooks) with one secret, and
 * added to the {@code deliver_to} of every configured source. It edits the configuration's
 * tree before it is bound ({@code ConfigLoader.load(file, env, edit)}), so the destinations
 * are read, checked and reported exactly as if they had been written in the file.
 *
 * <p>They are for trying delivery out, so they give up quickly: {@value #ATTEMPTS} attempts,
 * {@value #INITIAL_MS} ms then twice that apart (with jitter), after which the delivery is a
 * dead letter that {@code sluice dead} lists and {@code sluice redeliver} sends again. A
 * destination meant to last is written in a config file (docs/configuration.md).
 */
final class Forwarding implements UnaryOperator<Object> {

    static final String NAME_PREFIX = "forward-";
    static final long ATTEMPTS = 3;
    static final long INITIAL_MS = 1000;
    static final long MAX_MS = 4000;

    private final List<URI> urls;
    private final String secret;
    private final List<String> names = new ArrayList<>();
    private String problem;

    Forwarding(List<URI> urls, String secret) {
        this.urls = List.copyOf(urls);
        this.secret = secret;
    }

    /** {@code text} as an absolute {@code http} or {@code https} URL with a host, else null. */
    static URI parseUrl(String text) {
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme();
            if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                    || uri.getHost() == null) {
                return null;
            }
            return uri;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** The secret every forwarded attempt is signed with. */
    String secret() {
        return secret;
    }

    /** The destination names given, one per URL in order; filled by {@link #apply}. */
    List<String> names() {
        return List.copyOf(names);
    }

    /** Why nothing could be added (no sources to forward from), or null. */
    String problem() {
        return problem;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object apply(Object tree) {
        Map<String, Object> root = tree instanceof Map<?, ?> m ? (Map<String, Object>) m : new LinkedHashMap<>();
        if (!(root.get("sources") instanceof Map<?, ?> sources) || sources.isEmpty()) {
            problem = "--forward-to: the configuration has no sources, so no hook would be forwarded";
            return tree;
        }
        Object existing = root.get("destinations");
        Map<String, Object> destinations = existing instanceof Map<?, ?> d ? (Map<String, Object>) d : new LinkedHashMap<>();
        if (existing == null) {
            root.put("destinations", destinations);
        }
        int n = 1;
        for (URI url : urls) {
            while (destinations.containsKey(NAME_PREFIX + n)) {
                n++;
            }
            String name = NAME_PREFIX + n;
            names.add(name);
            destinations.put(name, destination(url));
        }
        for (Object source : sources.values()) {
            if (source instanceof Map<?, ?> s) {
                Map<String, Object> fields = (Map<String, Object>) s;
                Object deliverTo = fields.get("deliver_to");
                if (deliverTo == null) {
                    fields.put("deliver_to", new ArrayList<>(names));
                } else if (deliverTo instanceof List<?> list) {
                    List<Object> more = new ArrayList<>(list);
                    more.addAll(names);
                    fields.put("deliver_to", more);
                } // anything else is the file's mistake, reported as it is by the source reader
            }
        }
        return root;
    }

    private Map<String, Object> destination(URI url) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("type", "http");
        d.put("url", url.toString());
        d.put("signing", new LinkedHashMap<>(Map.of("scheme", "standard_webhooks", "secret", secret)));
        Map<String, Object> retry = new LinkedHashMap<>();
        retry.put("initial_ms", INITIAL_MS);
        retry.put("max_ms", MAX_MS);
        retry.put("max_attempts", ATTEMPTS);
        d.put("retry", retry);
        return d;
    }
}
