package org.sluice.spring;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.IdentityHashMap;
import org.sluice.servlet.RateLimitFilter;
import org.sluice.servlet.RequestKey;
import org.springframework.core.Ordered;
import org.springframework.http.server.PathContainer;

/**
 * The servlet stack's filter: finds the request's route and hands it to that route's
 * sluice-servlet {@link RateLimitFilter}, which charges it and answers {@code 429} with
 * {@code Retry-After} and the {@code RateLimit} fields. A request no route matches goes
 * down the chain uncounted. Boot registers it for every path, on request dispatches only
 * (an error page's forward is not counted again).
 */
final class SluiceServletFilter implements Filter, Ordered {

    private final SluiceRoutes routes;
    private final IdentityHashMap<SluiceRoutes.Route, RateLimitFilter> filters = new IdentityHashMap<>();
    private final int order;

    SluiceServletFilter(SluiceRoutes routes, int order) {
        this.routes = routes;
        this.order = order;
        RequestKey address = RequestKey.clientAddress(routes.clientAddress());
        for (SluiceRoutes.Route route : routes.routes()) {
            RequestKey key = switch (route.key()) {
                case ADDRESS -> address;
                case HEADER -> RequestKey.header(route.header(), address);
                case PRINCIPAL -> RequestKey.principal(address);
            };
            filters.put(route, RateLimitFilter.builder(route.limit()).key(key).policyName(route.name()).build());
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest http) {
            String uri = http.getRequestURI();
            String path = uri.substring(Math.min(uri.length(), http.getContextPath().length()));
            SluiceRoutes.Route route = routes.match(PathContainer.parsePath(path));
            if (route != null) {
                filters.get(route).doFilter(request, response, chain);
                return;
            }
        }
        chain.doFilter(request, response);
    }

    @Override
    public int getOrder() {
        return order;
    }
}
