package org.sluice.edge.config;

/** {@code http.routing}: where the ingest URL names the tenant. */
public enum Routing {
    /** {@code POST {prefix}/{source}}: the source decides the tenant. */
    PATH("path"),
    /** {@code POST {prefix}/{tenant}/{source}}: the sender names the tenant. */
    TENANT_PATH("tenant_path");

    private final String configName;

    Routing(String configName) {
        this.configName = configName;
    }

    /** The spelling used in the YAML file. */
    public String configName() {
        return configName;
    }
}
