package org.sluice.edge.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where the admin API is and how to authenticate, shared by the commands that call it
 * ({@code limits}, {@code tail}). The token is {@code $SLUICE_ADMIN_TOKEN} when set, else
 * the contents of {@code <data-dir>/admin.token} (the file a server without
 * {@code admin.token} generates at first boot). An admin listener with {@code admin.tls}
 * is reached with an {@code https://} URL, trusting {@code --ca} when given.
 */
final class AdminClientOptions {

    /** Environment variable holding the admin token. */
    static final String TOKEN_ENV = "SLUICE_ADMIN_TOKEN";

    @Option(names = "--admin", paramLabel = "URL", defaultValue = "http://127.0.0.1:9090",
            description = "admin listener base URL (default: ${DEFAULT-VALUE})")
    String admin;

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "./sluice-data",
            description = "the server's node.data_dir, to read admin.token from when $" + TOKEN_ENV
                    + " is unset (default: ${DEFAULT-VALUE})")
    Path dataDir;

    @Option(names = "--ca", paramLabel = "FILE",
            description = "PEM certificate(s) to trust for an https --admin URL (the server's admin.tls cert_file when"
                    + " it is self-signed, or a private CA); default: the JDK's trust store")
    Path ca;

    @Option(names = "--actor", paramLabel = "NAME",
            description = "who is making the change, recorded in the audit trail (X-Sluice-Actor; the server's default is admin)")
    String actor;
}
