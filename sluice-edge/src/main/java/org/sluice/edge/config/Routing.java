package org.sluice.edge.config;

import org.sluice.edge.settings.ConfigWord;

/** {@code http.routing}: where the ingest URL names the tenant. */
public enum Routing implements ConfigWord {
    /** {@code POST {prefix}/{source}}: the source decides the tenant. */
    PATH,
    /** {@code POST {prefix}/{tenant}/{source}}: the sender names the tenant. */
    TENANT_PATH;
}
