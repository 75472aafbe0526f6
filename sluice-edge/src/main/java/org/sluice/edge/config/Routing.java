package org.sluice.edge.config;

import java.util.Locale;

/** {@code http.routing}: where the ingest URL names the tenant. */
public enum Routing {
    /** {@code POST {prefix}/{source}}: the source decides the tenant. */
    PATH,
    /** {@code POST {prefix}/{tenant}/{source}}: the sender names the tenant. */
    TENANT_PATH;

    /** The spelling used in the YAML file. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
