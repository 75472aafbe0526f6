package org.sluice.edge.config;

import org.sluice.edge.settings.ConfigWord;

/** {@code rate_limits.scope}: where the per-IP, node and tenant buckets live. */
public enum LimitScope implements ConfigWord {
    /** In this process's heap. */
    NODE,
    /** In a shared-memory arena that every Sluice process on this host maps. */
    HOST,
    /** Tenant buckets in Redis, one limit across the fleet (per-IP, node and source stay per node). */
    FLEET;
}
