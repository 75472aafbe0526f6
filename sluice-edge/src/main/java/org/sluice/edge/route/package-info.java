/**
 * Routing and shaping: which of a source's destinations a hook is delivered to, and in what
 * shape an attempt leaves. A {@code deliver_to} entry may carry a filter ({@code when:});
 * {@link org.sluice.edge.route.Routes} applies a source's filters once, when a hook is
 * committed, and names the destinations that get a delivery row.
 *
 * <p>The room holds the predicate model ({@link org.sluice.edge.route.Filter}, a sealed type
 * over a {@link org.sluice.edge.route.JsonPath}, a header or the event type), its reader from
 * the config tree ({@link org.sluice.edge.route.FilterReader}), its evaluation over one hook
 * ({@link org.sluice.edge.route.HookFacts}), where a source's hooks name their event type
 * ({@link org.sluice.edge.route.EventType}), and a destination's transformation
 * ({@link org.sluice.edge.route.Transform}, read by {@link org.sluice.edge.route.TransformReader}:
 * declarative templates, bounded in time and output). It uses the JDK, Jackson (to parse a
 * body a {@code json} predicate or a template reads, and to write a reshaped body), RE2/J
 * (for {@code matches}: linear-time matching, so a hostile body cannot make a filter
 * backtrack) and {@code settings} (to report a bad filter or template with its key path);
 * nothing else of the edge. {@code config} reads filters with it, the ingest path
 * ({@code http}) applies them, and the HTTP transport ({@code delivery.http}) applies
 * transformations.
 */
package org.sluice.edge.route;
