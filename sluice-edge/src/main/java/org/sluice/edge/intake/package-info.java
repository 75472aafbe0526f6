/**
 * The intake: per-partition queues and their writer threads that group hooks into one
 * fsynced commit, with the node's queue bounds, commit deadlines and writer restart.
 *
 * <p>May use: {@code sluice-core}, {@code store}, {@code log}. Knows nothing of HTTP.
 */
package org.sluice.edge.intake;
