/**
 * The edge's own background threads, made alike and stopped alike: a daemon thread named for
 * what it does, and a stop that bounds its wait and keeps the caller's interrupt
 * ({@link org.sluice.edge.threads.Threads}). The server's sweeps, delivery's executors and the
 * broker transports' senders stop through it. Uses the JDK only (ArchitectureTest), so any room
 * may use it.
 */
package org.sluice.edge.threads;
