/**
 * Routing: which of a source's destinations a hook is delivered to. A {@code deliver_to}
 * entry may carry a filter ({@code when:}); {@link org.sluice.edge.route.Routes} applies a
 * source's filters once, when a hook is committed, and names the destinations that get a
 * delivery row.
 *
 * <p>The room holds the predicate model ({@link org.sluice.edge.route.Filter}, a sealed type
 * over a {@link org.sluice.edge.route.JsonPath} or a header), its reader from the config tree
 * ({@link org.sluice.edge.route.FilterReader}) and its evaluation over one hook
 * ({@link org.sluice.edge.route.HookFacts}), and where a source's hooks name their event type
 * ({@link org.sluice.edge.route.EventType}), which filters test and the admin API shows. It uses the JDK, Jackson (to parse a body that
 * a {@code json} predicate reads), RE2/J (for {@code matches}: linear-time matching, so a
 * hostile body cannot make a filter backtrack) and {@code settings} (to report a bad filter
 * with its key path); nothing else of the edge. {@code config} reads filters with it and the
 * ingest path ({@code http}) applies them.
 */
package org.sluice.edge.route;
