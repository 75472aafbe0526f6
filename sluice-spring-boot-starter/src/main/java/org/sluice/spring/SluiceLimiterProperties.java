package org.sluice.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code sluice.limiter.*} keys of {@code application.yml}: limits per route, each held
 * per key (the client's address, a header, the principal), in one scope (this process or
 * every process on the host).
 *
 * <pre>
 * sluice:
 *   limiter:
 *     scope: memory                      # or shared-memory, or redis
 *     trusted-proxies: [10.0.0.0/8]      # X-Forwarded-For is believed from these peers only
 *     routes:
 *       api:                             # the policy's name in the RateLimit headers and the meters' limiter tag
 *         paths: [/api/**]               # Spring path patterns; the first route whose pattern matches counts a request
 *         key: header                    # address (default), header or principal
 *         header: X-Api-Key              # for key: header; requests without it count by address
 *         bandwidths:
 *           - {rate: 10, burst: 20}      # 10 per second, bursts of 20
 *           - {rate: 1000, period: 1h, burst: 1000}
 * </pre>
 */
@ConfigurationProperties("sluice.limiter")
public class SluiceLimiterProperties {

    /** Where a route's buckets live. */
    public enum Scope {
        /** In this process: a {@code KeyedLimiter}, with Micrometer meters when a registry is present. */
        MEMORY,
        /** In a memory-mapped file every process on the host maps: a sluice-shm {@code SharedLimiter}. */
        SHARED_MEMORY,
        /** In Redis, for every node of the fleet: a sluice-fleet {@code FleetLimiter}. */
        REDIS
    }

    /** What a request is counted against. */
    public enum Key {
        /** The client's address: the peer's, or from {@code X-Forwarded-For} behind a trusted proxy. */
        ADDRESS,
        /** The value of the route's {@code header}; the address when the request has none. */
        HEADER,
        /** The authenticated principal's name; the address for an anonymous request. */
        PRINCIPAL
    }

    /** Whether the filters are registered at all. */
    private boolean enabled = true;
    /** Where the buckets live. */
    private Scope scope = Scope.MEMORY;
    /** Peers (CIDRs or addresses) whose {@code X-Forwarded-For} is believed. */
    private List<String> trustedProxies = new ArrayList<>();
    /** The servlet filter's and the WebFlux filter's order (after Spring Security's, -100, so principals are known). */
    private int filterOrder = 0;
    /** The routes by name, in the order they are tried. */
    private Map<String, Route> routes = new LinkedHashMap<>();
    /** The arena of the {@code shared-memory} scope. */
    private SharedMemory sharedMemory = new SharedMemory();
    /** The server of the {@code redis} scope. */
    private Redis redis = new Redis();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Scope getScope() {
        return scope;
    }

    public void setScope(Scope scope) {
        this.scope = scope;
    }

    public List<String> getTrustedProxies() {
        return trustedProxies;
    }

    public void setTrustedProxies(List<String> trustedProxies) {
        this.trustedProxies = trustedProxies;
    }

    public int getFilterOrder() {
        return filterOrder;
    }

    public void setFilterOrder(int filterOrder) {
        this.filterOrder = filterOrder;
    }

    public Map<String, Route> getRoutes() {
        return routes;
    }

    public void setRoutes(Map<String, Route> routes) {
        this.routes = routes;
    }

    public SharedMemory getSharedMemory() {
        return sharedMemory;
    }

    public void setSharedMemory(SharedMemory sharedMemory) {
        this.sharedMemory = sharedMemory;
    }

    public Redis getRedis() {
        return redis;
    }

    public void setRedis(Redis redis) {
        this.redis = redis;
    }

    /** One route: the paths it covers, what it counts by and its limit. */
    public static class Route {

        /** Spring path patterns ({@code /api/**}, {@code /orders/{id}}); default every path. */
        private List<String> paths = new ArrayList<>(List.of("/**"));
        /** What a request is counted against. */
        private Key key = Key.ADDRESS;
        /** The header of {@code key: header}. */
        private String header;
        /** One or more bandwidths; a request is admitted only when every one admits it. */
        private List<Bandwidth> bandwidths = new ArrayList<>();

        public List<String> getPaths() {
            return paths;
        }

        public void setPaths(List<String> paths) {
            this.paths = paths;
        }

        public Key getKey() {
            return key;
        }

        public void setKey(Key key) {
            this.key = key;
        }

        public String getHeader() {
            return header;
        }

        public void setHeader(String header) {
            this.header = header;
        }

        public List<Bandwidth> getBandwidths() {
            return bandwidths;
        }

        public void setBandwidths(List<Bandwidth> bandwidths) {
            this.bandwidths = bandwidths;
        }
    }

    /** {@code rate} permits per {@code period}, at most {@code burst} back to back. */
    public static class Bandwidth {

        /** Permits per period (a decimal is allowed). */
        private double rate;
        /** The period of {@code rate}; default one second. */
        private Duration period = Duration.ofSeconds(1);
        /** Permits that may be taken back to back from a full bucket. */
        private int burst;

        public double getRate() {
            return rate;
        }

        public void setRate(double rate) {
            this.rate = rate;
        }

        public Duration getPeriod() {
            return period;
        }

        public void setPeriod(Duration period) {
            this.period = period;
        }

        public int getBurst() {
            return burst;
        }

        public void setBurst(int burst) {
            this.burst = burst;
        }
    }

    /** The memory-mapped file of the {@code shared-memory} scope. */
    public static class SharedMemory {

        /** The arena's file; default {@code sluice-limiter} under {@code /dev/shm} (or the temporary directory). */
        private Path file;
        /** The arena's size in bytes, made when the file is new. */
        private long sizeBytes = 16L << 20;
        /** Keys each route's table holds (rounded up to a power of two). */
        private int slots = 16_384;

        public Path getFile() {
            return file;
        }

        public void setFile(Path file) {
            this.file = file;
        }

        public long getSizeBytes() {
            return sizeBytes;
        }

        public void setSizeBytes(long sizeBytes) {
            this.sizeBytes = sizeBytes;
        }

        public int getSlots() {
            return slots;
        }

        public void setSlots(int slots) {
            this.slots = slots;
        }
    }

    /** The Redis of the {@code redis} scope. */
    public static class Redis {

        /** The server, {@code redis://host:port}; required in the {@code redis} scope. */
        private String uri;
        /** The longest a call waits for Redis before the node-local limiter answers it, in milliseconds. */
        private long timeoutMs = 50;
        /**
         * What each route's limiter name in Redis starts with ({@code <namespace>.<route>}), so
         * that applications sharing one Redis keep their buckets apart: 1 to 64 of letters,
         * digits, {@code - _ .}. Not set: {@code spring.application.name} when that is set,
         * else the route's name alone.
         */
        private String namespace;

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }

        public long getTimeoutMs() {
            return timeoutMs;
        }

        public void setTimeoutMs(long timeoutMs) {
            this.timeoutMs = timeoutMs;
        }

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }
    }
}
