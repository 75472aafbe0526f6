/**
 * The command line ({@code sluice serve | receive | doctor | check-config | version | limits |
 * tail | load} and the delivery commands), built with picocli. The admin commands talk to a
 * running node over its admin API ({@code AdminClient}); {@code serve} boots a
 * {@code server.EdgeServer}, after adding {@code --forward-to}'s destinations to the
 * configuration's tree ({@code Forwarding}) and applying {@code logging.format}
 * ({@code LogFormat}); {@code receive} is a small receiver of its own, and {@code doctor}
 * checks a configuration against the machine.
 *
 * <p>May use: everything in the edge; nothing uses it.
 */
package org.sluice.edge.cli;
