/**
 * The node's lifecycle: {@code EdgeServer} boots and stops everything, in order; the state
 * behind the request path ({@code Backends}: store, intake, tenant limits, queue shares), the
 * background sweeper, the admin listener ({@code AdminServer}, {@code AdminDeadlines}) and the
 * choice of Netty transport ({@code NettyTransport}).
 *
 * <p>May use every other package of the edge; no other package uses this one except
 * {@code cli} (which starts an {@code EdgeServer}). The only public API is
 * {@code EdgeServer} and its builder.
 */
package org.sluice.edge.server;
