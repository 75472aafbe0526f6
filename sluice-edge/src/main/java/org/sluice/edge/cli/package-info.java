/**
 * The command line ({@code sluice serve | check-config | version | limits | tail | load}),
 * built with picocli. The admin commands talk to a running node over its admin API
 * ({@code AdminClient}); {@code serve} boots a {@code server.EdgeServer}.
 *
 * <p>May use: everything in the edge; nothing uses it.
 */
package org.sluice.edge.cli;
