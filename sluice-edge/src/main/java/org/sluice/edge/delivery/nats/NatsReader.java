package org.sluice.edge.delivery.nats;

import org.sluice.edge.delivery.targets.NatsTarget;
import org.sluice.edge.delivery.targets.Target;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sluice.edge.delivery.broker.BrokerReader;
import org.sluice.edge.settings.FilePaths;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;

/**
 * The own keys of a {@code type: nats} destination: {@code servers} (required),
 * {@code subject} (required, with {@code {tenant}} and {@code {source}}) and
 * {@code credentials_file} and {@code ca_file} (only with a {@code tls://} or {@code wss://}
 * server). Every problem names its key path and the value (a server URL's
 * user info is never printed).
 */
public final class NatsReader extends BrokerReader {

    /** The keys a nats destination has of its own. */
    public static final List<String> OWN_KEYS = List.of("servers", "subject", "credentials_file", "ca_file");
    static final Set<String> SCHEMES = Set.of("nats", "tls", "ws", "wss");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^}]*)}");
    private static final Set<String> PLACEHOLDERS = Set.of("tenant", "source");

    public NatsReader() {
        super(Target.Kind.NATS, OWN_KEYS);
    }

    @Override
    protected Supplier<NatsTarget> target(Section s) {
        List<String> servers = servers(s);
        String subject = subject(s);
        Optional<Path> creds = credentials(s);
        Optional<Path> ca = caFile(s, servers);
        return () -> new NatsTarget(servers, subject, creds, ca);
    }

    private static List<String> servers(Section s) {
        List<?> raw = s.nonEmptyList("servers", "a list of nats:// URLs, e.g. [\"nats://127.0.0.1:4222\"]",
                "list at least one server URL");
        if (raw == null) {
            return List.of();
        }
        String at = s.pathOf("servers");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String url = Values.string(raw.get(i));
            String why = url == null ? "a string" : serverProblem(url);
            if (why != null) {
                String shown = url == null ? Values.render(raw.get(i)) : Values.quote(NatsTarget.redact(url));
                s.problem(Paths.index(at, i) + " must be " + why + ", got " + shown);
            } else {
                out.add(url);
            }
        }
        return out;
    }

    private static String serverProblem(String url) {
        try {
            URI u = new URI(url);
            if (u.getScheme() == null || !SCHEMES.contains(u.getScheme())) {
                return "a URL with scheme nats, tls, ws or wss";
            }
            if (u.getHost() == null || u.getHost().isEmpty()) {
                return "a URL with a host";
            }
            if (u.getPort() > 65_535 || u.getPort() == 0) {
                return "a URL with a port from 1 to 65535";
            }
            return null;
        } catch (URISyntaxException bad) {
            return "a valid URL";
        }
    }

    private static String subject(Section s) {
        if (!s.required("subject", "a subject like \"hooks.{tenant}.{source}\"")) {
            return null;
        }
        String at = s.pathOf("subject");
        String subject = s.string("subject", null);
        if (subject == null) {
            return null;
        }
        Matcher m = PLACEHOLDER.matcher(subject);
        while (m.find()) {
            if (!PLACEHOLDERS.contains(m.group(1))) {
                s.problem(at + " may hold only {tenant} and {source}, got " + Values.quote(m.group()) + " in "
                        + Values.quote(subject));
                return null;
            }
        }
        // a sample fill: the placeholders stand for one token each
        if (!NatsTarget.isPublishSubject(NatsTarget.fill(subject, "t", "s"))) {
            s.problem(at + " must be a NATS subject to publish on (dot-separated tokens, none empty, no * or >,"
                    + " no white space), got " + Values.quote(subject));
            return null;
        }
        return subject;
    }

    private static Optional<Path> credentials(Section s) {
        String file = s.string("credentials_file", "");
        if (file == null || file.isEmpty()) {
            return Optional.empty();
        }
        Path p = FilePaths.of(file);
        if (p == null || FilePaths.unreadable(p) != null) {
            s.problem(s.pathOf("credentials_file") + " must be a readable .creds file, got " + Values.quote(file));
            return Optional.empty();
        }
        return Optional.of(p);
    }

    private static Optional<Path> caFile(Section s, List<String> servers) {
        if (!s.has("ca_file")) {
            return Optional.empty();
        }
        String at = s.pathOf("ca_file");
        Path p = FilePaths.of(s.raw("ca_file"));
        if (p == null) {
            s.problem(at + " must be a file system path, got " + Values.render(s.raw("ca_file")));
            return Optional.empty();
        }
        String file = Values.string(s.raw("ca_file"));
        if (!servers.isEmpty() && servers.stream().noneMatch(NatsTarget::isTlsUrl)) {
            s.problem(at + " applies only to tls:// or wss:// servers, got " + Values.quote(file) + " with "
                    + servers.stream().map(NatsTarget::redact).toList());
            return Optional.empty();
        }
        String why = FilePaths.unreadable(p);
        if (why != null) {
            s.problem(at + " must be a readable file of PEM certificates, got " + Values.quote(file) + " (" + why + ")");
            return Optional.empty();
        }
        return Optional.of(p);
    }
}
