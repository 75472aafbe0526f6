package org.sluice.edge.cli;

import java.util.Map;
import java.util.concurrent.Callable;

/**
 * What every admin-API command holds besides its options: the environment its token is read
 * from ({@code $SLUICE_ADMIN_TOKEN}, see {@link AdminClientOptions}). Picocli makes each
 * command with its no-argument constructor, so the environment is the process's own until
 * {@link #environment} replaces it.
 */
abstract class AdminCommand implements Callable<Integer> {

    private Map<String, String> env = Map.copyOf(System.getenv());

    /** Reads the token from {@code env} instead of the process's environment (for tests); returns this command. */
    public AdminCommand environment(Map<String, String> env) {
        this.env = Map.copyOf(env);
        return this;
    }

    /** The environment the admin client is made with. */
    final Map<String, String> env() {
        return env;
    }
}
