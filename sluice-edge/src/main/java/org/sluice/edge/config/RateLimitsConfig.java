package org.sluice.edge.config;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.sluice.core.Limit;

/**
 * {@code rate_limits:} every admission limit.
 *
 * @param scope                {@code rate_limits.scope}, default {@link LimitScope#NODE}
 * @param shadow               {@code rate_limits.shadow}, default false: charge and count every
 *                             layer, refuse nothing
 * @param perIp                {@code rate_limits.per_ip} ({@code rate}, {@code burst} only),
 *                             default off: hooks per second per client address (IPv6 by /64)
 * @param node                 {@code rate_limits.node} ({@code rate}, {@code burst} only),
 *                             default off: hooks per second for the whole node
 * @param sourceBytesPerSecond {@code rate_limits.sources.default.bytes_per_second}, default
 *                             100000000: the body-bytes ceiling of a source without its own
 *                             {@code bytes_per_second}
 * @param defaultLimit         {@code rate_limits.default}, default absent: the limit of a tenant
 *                             with no entry in {@code tenants} (absent: such tenants are unlimited)
 * @param tenants              {@code rate_limits.tenants}: limits by tenant id, in file order
 * @param hostArena            {@code rate_limits.host_arena}, default
 *                             {@code /dev/shm/sluice-<node.id>}: the shared-memory file used
 *                             when {@code scope} is {@code host}
 * @param hostArenaGroup       {@code rate_limits.host_arena_group}, default absent: the group
 *                             the host arena is shared with (mode 0660 of that group; absent:
 *                             the file is 0600, this user's processes only)
 * @param defaultMaxStoredBytes {@code rate_limits.default.max_stored_bytes}, default absent:
 *                             the store share of a tenant with no entry in {@code tenants}
 * @param maxStoredBytes       {@code rate_limits.tenants.<id>.max_stored_bytes}: store shares
 *                             by tenant id, only for the entries that set one
 */
public record RateLimitsConfig(
        LimitScope scope,
        boolean shadow,
        Optional<Limit> perIp,
        Optional<Limit> node,
        long sourceBytesPerSecond,
        Optional<Limit> defaultLimit,
        Map<String, Limit> tenants,
        Path hostArena,
        Optional<String> hostArenaGroup,
        OptionalLong defaultMaxStoredBytes,
        Map<String, Long> maxStoredBytes) {

    public static final long DEFAULT_SOURCE_BYTES_PER_SECOND = 100_000_000L;

    public RateLimitsConfig {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(perIp, "perIp");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(defaultLimit, "defaultLimit");
        Objects.requireNonNull(hostArena, "hostArena");
        Objects.requireNonNull(hostArenaGroup, "hostArenaGroup");
        tenants = Collections.unmodifiableMap(new LinkedHashMap<>(tenants));
        Objects.requireNonNull(defaultMaxStoredBytes, "defaultMaxStoredBytes");
        maxStoredBytes = Map.copyOf(maxStoredBytes);
    }

    /** Without store shares ({@code max_stored_bytes}). */
    public RateLimitsConfig(LimitScope scope, boolean shadow, Optional<Limit> perIp, Optional<Limit> node,
            long sourceBytesPerSecond, Optional<Limit> defaultLimit, Map<String, Limit> tenants, Path hostArena,
            Optional<String> hostArenaGroup) {
        this(scope, shadow, perIp, node, sourceBytesPerSecond, defaultLimit, tenants, hostArena, hostArenaGroup,
                OptionalLong.empty(), Map.of());
    }

    /** Without {@code rate_limits.host_arena_group}: the host arena is this user's only. */
    public RateLimitsConfig(LimitScope scope, boolean shadow, Optional<Limit> perIp, Optional<Limit> node,
            long sourceBytesPerSecond, Optional<Limit> defaultLimit, Map<String, Limit> tenants, Path hostArena) {
        this(scope, shadow, perIp, node, sourceBytesPerSecond, defaultLimit, tenants, hostArena, Optional.empty());
    }

    /** The default host arena path for a node id. */
    public static Path defaultHostArena(String nodeId) {
        return Path.of("/dev/shm/sluice-" + nodeId);
    }

    public static RateLimitsConfig defaults(String nodeId) {
        return new RateLimitsConfig(LimitScope.NODE, false, Optional.empty(), Optional.empty(),
                DEFAULT_SOURCE_BYTES_PER_SECOND, Optional.empty(), Map.of(), defaultHostArena(nodeId));
    }

    /**
     * The configured limit of {@code tenant}: its entry in {@code rate_limits.tenants}, else
     * {@code rate_limits.default}, else empty (unlimited). Runtime overrides (admin API) take
     * precedence over this and are not known here.
     */
    public Optional<Limit> configuredLimit(String tenant) {
        Limit own = tenants.get(tenant);
        return own != null ? Optional.of(own) : defaultLimit;
    }

    /**
     * The body bytes {@code tenant} may hold in the store ({@code max_stored_bytes}), chosen
     * as {@link #configuredLimit} is: from its entry in {@code tenants} when it has one (an
     * entry without the key: no share), else {@code rate_limits.default}'s. Empty: no share.
     * Config only: a runtime override (admin API) replaces the rates, never this.
     */
    public OptionalLong maxStoredBytes(String tenant) {
        if (tenants.containsKey(tenant)) {
            Long own = maxStoredBytes.get(tenant);
            return own == null ? OptionalLong.empty() : OptionalLong.of(own);
        }
        return defaultMaxStoredBytes;
    }

    /** Whether any tenant has a store share: then the store counts each tenant's stored bytes. */
    public boolean hasStoredShares() {
        return defaultMaxStoredBytes.isPresent() || !maxStoredBytes.isEmpty();
    }
}
