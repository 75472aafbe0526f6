package org.sluice.spring;

import org.sluice.core.LimiterListener;

/**
 * The listener each in-memory route's limiter is built with. An interface of core types
 * only, so that {@link SluiceRoutes} loads without Micrometer on the classpath; {@link
 * SluiceMeters} is the one implementation.
 */
interface RouteListeners {

    /** The listener of the route named {@code route}. */
    LimiterListener forRoute(String route);
}
