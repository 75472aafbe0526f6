package org.sluice.edge.delivery;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.sluice.edge.store.StoredHook;

/**
 * A {@code type: nats} destination's own settings (validated by the config reader).
 *
 * @param servers         NATS server URLs ({@code nats://}, {@code tls://}, {@code ws://}, {@code wss://})
 * @param subject         the subject template; {@code {tenant}} and {@code {source}} are filled per hook
 * @param credentialsFile a {@code .creds} file (JWT and NKey seed); empty: no credentials
 */
public record NatsSettings(List<String> servers, String subject, Optional<Path> credentialsFile)
        implements BrokerSettings {

    /** What fills {@code {tenant}} for a hook without a tenant. */
    public static final String NO_TENANT = "_";

    public NatsSettings {
        servers = List.copyOf(servers);
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(credentialsFile, "credentialsFile");
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("servers must not be empty");
        }
    }

    /** The subject {@code hook} is published on: the template with its tenant and source. */
    public String subjectFor(StoredHook hook) {
        return fill(subject, hook.tenant(), hook.source());
    }

    /** {@code template} with {@code {tenant}} (or {@link #NO_TENANT}) and {@code {source}} filled. */
    public static String fill(String template, String tenant, String source) {
        return template.replace("{tenant}", tenant == null || tenant.isEmpty() ? NO_TENANT : tenant)
                .replace("{source}", source);
    }

    /**
     * True when {@code subject} is a subject one may publish on: dot-separated tokens, none
     * empty, none a wildcard ({@code *}, {@code >}), no white space or control character.
     */
    public static boolean isPublishSubject(String subject) {
        if (subject.isEmpty()) {
            return false;
        }
        for (String token : subject.split("\\.", -1)) {
            if (token.isEmpty() || token.equals("*") || token.equals(">")) {
                return false;
            }
            for (int i = 0; i < token.length(); i++) {
                char c = token.charAt(i);
                if (c <= ' ' || c == 0x7f) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Never prints credentials: user info in a server URL is replaced, the creds file only named. */
    @Override
    public String toString() {
        return "nats " + servers.stream().map(NatsSettings::redact).toList() + " subject=" + subject
                + credentialsFile.map(p -> " credentials_file=" + p).orElse("");
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
