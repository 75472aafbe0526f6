/**
 * Netty's I/O transport, chosen once per process: io_uring, epoll or NIO
 * ({@link org.sluice.edge.netio.IoTransport}), and the choice for {@code http.transport}
 * with the reason an operator reads on the boot line and in {@code sluice doctor}
 * ({@link org.sluice.edge.netio.TransportChoice}; why io_uring was refused is worked out by
 * {@code IoUringProbe}).
 *
 * <p>The ingest and admin listeners ({@code server}) and the HTTP delivery client's loops
 * ({@code delivery.http}) all take their event loop groups and channel classes from here, so
 * one setting moves every socket of the node. Uses the JDK and Netty only (ArchitectureTest).
 */
package org.sluice.edge.netio;
