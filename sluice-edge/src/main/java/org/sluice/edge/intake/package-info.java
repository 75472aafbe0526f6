/**
 * The intake: per-partition queues and their writer threads that group hooks into one
 * fsynced commit, with the node's queue bounds, commit deadlines and writer restart.
 *
 * <p>May use: {@code sluice-core}, {@code store} (it commits through the
 * {@code HookLog}), {@code log}. Knows nothing of HTTP; never reaches {@code admin},
 * {@code server} or {@code cli} (ArchitectureTest).
 */
package org.sluice.edge.intake;
