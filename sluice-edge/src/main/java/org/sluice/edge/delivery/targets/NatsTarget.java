package org.sluice.edge.delivery.targets;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code type: nats} destination's target: a NATS JetStream subject, with the servers
 * (validated by the {@code delivery.nats} room's reader).
 *
 * @param servers         NATS server URLs ({@code nats://}, {@code tls://}, {@code ws://}, {@code wss://})
 * @param subject         the subject template; {@code {tenant}} and {@code {source}} are filled per hook
 * @param credentialsFile a {@code .creds} file (JWT and NKey seed); empty: no credentials
 * @param caFile          PEM certificates trusted for TLS instead of the JDK's; empty: the JDK's.
 *                        Either way a TLS connection verifies the server's host name
 */
public record NatsTarget(List<String> servers, String subject, Optional<Path> credentialsFile, Optional<Path> caFile)
        implements Target {

    /** What fills {@code {tenant}} for a hook without a tenant. */
    public static final String NO_TENANT = "_";

    public NatsTarget {
        servers = List.copyOf(servers);
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(credentialsFile, "credentialsFile");
        Objects.requireNonNull(caFile, "caFile");
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("servers must not be empty");
        }
    }

    /** A target that trusts the JDK's trust store for TLS. */
    public NatsTarget(List<String> servers, String subject, Optional<Path> credentialsFile) {
        this(servers, subject, credentialsFile, Optional.empty());
    }

    /** True when a connection uses TLS: a {@code tls://} or {@code wss://} server, or a {@code ca_file}. */
    public boolean tls() {
        return caFile.isPresent() || servers.stream().anyMatch(NatsTarget::isTlsUrl);
    }

    /** True for a {@code tls://} or {@code wss://} server URL. */
    public static boolean isTlsUrl(String url) {
        String u = url.toLowerCase(java.util.Locale.ROOT);
        return u.startsWith("tls://") || u.startsWith("wss://");
    }

    @Override
    public Kind kind() {
        return Kind.NATS;
    }

    /** The subject a hook of {@code tenant} (null or empty: {@value #NO_TENANT}) and {@code source} is published on. */
    public String subjectFor(String tenant, String source) {
        return fill(subject, tenant, source);
    }

    /**
     * {@code template} with {@code {tenant}} (or {@link #NO_TENANT}) and {@code {source}}
     * filled, in one pass over the template: only the template's own placeholders are
     * filled, never text that a filled value brings.
     */
    public static String fill(String template, String tenant, String source) {
        String t = tenant == null || tenant.isEmpty() ? NO_TENANT : tenant;
        int open = template.indexOf('{');
        if (open < 0) {
            return template;
        }
        StringBuilder out = new StringBuilder(template.length() + t.length() + source.length());
        int from = 0;
        for (; open >= 0; open = template.indexOf('{', open + 1)) {
            String placeholder = template.startsWith(TENANT, open) ? TENANT : template.startsWith(SOURCE, open) ? SOURCE : null;
            if (placeholder != null) {
                out.append(template, from, open).append(placeholder == TENANT ? t : source);
                from = open + placeholder.length();
                open = from - 1;
            }
        }
        return out.append(template, from, template.length()).toString();
    }

    private static final String TENANT = "{tenant}";
    private static final String SOURCE = "{source}";

    /** True when the subject template holds {@code {tenant}}. */
    public boolean fillsTenant() {
        return subject.contains(TENANT);
    }

    /**
     * Why {@code id} cannot fill a placeholder of a subject, or null when it can: a filled
     * value must be exactly one token, so no dot (which would split it: {@code acme.} makes
     * an empty token, {@code acme.billing} one more token that {@code hooks.acme.>} also
     * matches), no wildcard ({@code *}, {@code >}), no white space or control character.
     */
    public static String tokenProblem(String id) {
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c == '.') {
                return "must be one subject token, without a dot";
            }
            if (c == '*' || c == '>') {
                return "must be one subject token, without the wildcards * and >";
            }
            if (c <= ' ' || c == 0x7f) {
                return "must be one subject token, without white space or control characters";
            }
        }
        return null;
    }

    /**
     * Why a hook's {@code tenant} cannot fill this subject, or null when it can: a tenant named
     * in the ingest URL under {@code routing: tenant_path} is only known here (one a source
     * names is refused at boot; a source id never holds a dot, wildcard or space).
     */
    public String fillProblem(String tenant) {
        String t = tenant;
        if (fillsTenant() && t != null && !t.isEmpty() && tokenProblem(t) != null) {
            return "tenant id " + t + " cannot fill {tenant} in subject " + subject + ": a tenant id there "
                    + tokenProblem(t);
        }
        return null;
    }

    /**
     * True when {@code subject} is a subject one may publish on: dot-separated tokens, none
     * empty, none a wildcard ({@code *}, {@code >}), no white space or control character.
     */
    public static boolean isPublishSubject(String subject) {
        int tokenStart = 0;
        for (int i = 0; i <= subject.length(); i++) {
            char c = i == subject.length() ? '.' : subject.charAt(i);
            if (c == '.') {
                int n = i - tokenStart;
                if (n == 0 || (n == 1 && (subject.charAt(tokenStart) == '*' || subject.charAt(tokenStart) == '>'))) {
                    return false;
                }
                tokenStart = i + 1;
            } else if (c <= ' ' || c == 0x7f) {
                return false;
            }
        }
        return true;
    }

    /** The user info (and password) of each server URL. */
    @Override
    public List<String> secrets() {
        return servers.stream().flatMap(u -> Target.userInfoSecrets(u).stream()).toList();
    }

    /** Never prints credentials: user info in a server URL is replaced, the creds file only named. */
    @Override
    public String toString() {
        return "nats " + servers.stream().map(NatsTarget::redact).toList() + " subject=" + subject
                + credentialsFile.map(p -> " credentials_file=" + p).orElse("")
                + caFile.map(p -> " ca_file=" + p).orElse("");
    }

    /** {@code url} without its user info (user, password or token). */
    public static String redact(String url) {
        try {
            URI u = new URI(url);
            if (u.getRawUserInfo() == null) {
                return url;
            }
            return new URI(u.getScheme(), "***", u.getHost(), u.getPort(), u.getPath(), null, null).toString();
        } catch (java.net.URISyntaxException e) {
            int at = url.lastIndexOf('@');
            return at < 0 ? url : "***" + url.substring(at);
        }
    }
}
