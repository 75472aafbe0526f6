package org.sluice.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.LimiterListener;
import org.sluice.servlet.ClientAddress;
import org.sluice.servlet.RateLimitFields;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The routes of {@code sluice.limiter.routes}, each with its limiter built in the
 * configured scope: what the servlet filter and the WebFlux filter share. A request is
 * counted by the first route (in the file's order) one of whose patterns matches its path
 * within the application; a request no route matches is not counted. Every setting is
 * checked here, at startup, and a bad one fails the context with a message naming its key.
 */
final class SluiceRoutes implements AutoCloseable {

    private static final String PREFIX = "sluice.limiter.routes.";

    /**
     * One route: its patterns, its limit, what it counts by, and its header values; {@code
     * blocking} when a call of its limit waits for a round trip (the {@code redis} scope).
     */
    record Route(String name, List<PathPattern> patterns, KeyedLimit<String> limit,
                 SluiceLimiterProperties.Key key, String header, RateLimitFields fields, boolean blocking) {

        boolean matches(PathContainer path) {
            for (PathPattern pattern : patterns) {
                if (pattern.matches(path)) {
                    return true;
                }
            }
            return false;
        }
    }

    private final List<Route> routes;
    private final ClientAddress clientAddress;
    private final AutoCloseable scope;

    private SluiceRoutes(List<Route> routes, ClientAddress clientAddress, AutoCloseable scope) {
        this.routes = routes;
        this.clientAddress = clientAddress;
        this.scope = scope;
    }

    /**
     * The routes of {@code properties}, their limiters on {@code clock}, each with {@code
     * listeners}' listener when it is not null.
     *
     * @throws IllegalArgumentException naming the key of the first bad setting
     */
    static SluiceRoutes build(SluiceLimiterProperties properties, Clock clock, RouteListeners listeners) {
        return build(properties, clock, null, listeners);
    }

    /**
     * As above; in the {@code redis} scope, {@code scriptClock} (the application's own
     * clock bean, when it has one: a test's manual clock) is sent as the time of every
     * charge instead of Redis's.
     */
    static SluiceRoutes build(SluiceLimiterProperties properties, Clock clock, Clock scriptClock, RouteListeners listeners) {
        return build(properties, clock, scriptClock, listeners, null);
    }

    /**
     * As above; in the {@code redis} scope, {@code applicationName} ({@code
     * spring.application.name}, or null) names the routes' limiters in Redis when {@code
     * sluice.limiter.redis.namespace} is not set.
     */
    static SluiceRoutes build(SluiceLimiterProperties properties, Clock clock, Clock scriptClock, RouteListeners listeners,
                              String applicationName) {
        ClientAddress clientAddress = new ClientAddress(properties.getTrustedProxies());
        SluiceLimiterProperties.Scope scope = properties.getScope();
        SharedMemoryScope arena = null;
        FleetScope fleet = null;
        List<Route> routes = new ArrayList<>();
        try {
            for (Map.Entry<String, SluiceLimiterProperties.Route> entry : properties.getRoutes().entrySet()) {
                String name = entry.getKey();
                SluiceLimiterProperties.Route route = entry.getValue();
                List<Limit> limits = limits(name, route);
                LimiterListener listener = listeners == null ? null : listeners.forRoute(name);
                KeyedLimit<String> limit;
                if (scope == SluiceLimiterProperties.Scope.SHARED_MEMORY) {
                    if (arena == null) {
                        arena = SharedMemoryScope.open(properties.getSharedMemory());
                    }
                    limit = arena.limiter(name, limits, clock, listener);
                } else if (scope == SluiceLimiterProperties.Scope.REDIS) {
                    if (fleet == null) {
                        fleet = FleetScope.open(properties.getRedis(), applicationName);
                    }
                    limit = fleet.limiter(name, limits, clock, scriptClock, listener);
                } else {
                    KeyedLimiter.Builder<String> builder = KeyedLimiter.<String>builder().clock(clock);
                    limits.forEach(builder::bandwidth);
                    if (listener != null) {
                        builder.listener(listener);
                    }
                    limit = builder.build();
                }
                routes.add(new Route(name, patterns(name, route), limit, route.getKey(), header(name, route),
                        new RateLimitFields(checkName(name), limits), scope == SluiceLimiterProperties.Scope.REDIS));
            }
        } catch (RuntimeException e) {
            if (arena != null) {
                arena.close();
            }
            if (fleet != null) {
                fleet.close();
            }
            throw e;
        }
        return new SluiceRoutes(List.copyOf(routes), clientAddress, arena != null ? arena : fleet);
    }

    private static String checkName(String name) {
        try {
            return RateLimitFields.checkName(name);
        } catch (IllegalArgumentException notAToken) {
            throw new IllegalArgumentException(PREFIX + "<name> must be letters, digits, - _ or ., got " + name);
        }
    }

    private static List<Limit> limits(String name, SluiceLimiterProperties.Route route) {
        List<SluiceLimiterProperties.Bandwidth> bandwidths = route.getBandwidths();
        if (bandwidths == null || bandwidths.isEmpty()) {
            throw new IllegalArgumentException(PREFIX + name + ".bandwidths must hold at least one bandwidth, got none");
        }
        List<Limit> limits = new ArrayList<>(bandwidths.size());
        for (int i = 0; i < bandwidths.size(); i++) {
            SluiceLimiterProperties.Bandwidth b = bandwidths.get(i);
            String key = PREFIX + name + ".bandwidths[" + i + "]";
            if (b.getPeriod() == null || b.getPeriod().isNegative() || b.getPeriod().isZero()) {
                throw new IllegalArgumentException(key + ".period must be a positive duration, got " + b.getPeriod());
            }
            double perSecond = b.getRate() * 1e9 / b.getPeriod().toNanos();
            try {
                limits.add(Limit.of(perSecond, b.getBurst()));
            } catch (IllegalArgumentException e) {
                // "...bandwidths[0].burst must be ...": the root cause a failed startup shows, so no cause chained
                throw new IllegalArgumentException(key + "." + e.getMessage());
            }
        }
        return limits;
    }

    private static List<PathPattern> patterns(String name, SluiceLimiterProperties.Route route) {
        if (route.getPaths() == null || route.getPaths().isEmpty()) {
            throw new IllegalArgumentException(PREFIX + name + ".paths must hold at least one path pattern, got none");
        }
        List<PathPattern> patterns = new ArrayList<>();
        for (String path : route.getPaths()) {
            try {
                patterns.add(PathPatternParser.defaultInstance.parse(path));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PREFIX + name + ".paths must be Spring path patterns, got " + path
                        + " (" + e.getMessage() + ")");
            }
        }
        return List.copyOf(patterns);
    }

    private static String header(String name, SluiceLimiterProperties.Route route) {
        if (route.getKey() == SluiceLimiterProperties.Key.HEADER && (route.getHeader() == null || route.getHeader().isBlank())) {
            throw new IllegalArgumentException(PREFIX + name + ".header must name a header when key is header, got none");
        }
        return route.getHeader();
    }

    /** The first route matching {@code path} (a path within the application), or null. */
    Route match(PathContainer path) {
        for (Route route : routes) {
            if (route.matches(path)) {
                return route;
            }
        }
        return null;
    }

    List<Route> routes() {
        return routes;
    }

    /** The rule that finds a client's address behind {@code trusted-proxies}. */
    ClientAddress clientAddress() {
        return clientAddress;
    }

    @Override
    public void close() throws Exception {
        if (scope != null) {
            scope.close();
        }
    }
}
