package org.sluice.edge.delivery;

/**
 * A paced destination's permits, as its {@link Outlet} asks for them: a pass announces how
 * many attempts it could start ({@link #beginPass}), takes one permit per attempt
 * ({@link #tryTake}) and gives back nothing at its end ({@link #endPass}: what it did not
 * take is dropped). Two kinds: {@link LocalPacer} (this node's own bucket, the
 * {@code rocksdb} kind, or the {@code kafka} kind without the fleet's Redis) and
 * {@link FleetPacer} (the fleet's bucket, leased once per pass).
 *
 * <p>Threads: {@link #beginPass}, {@link #tryTake} and {@link #endPass} are the pass's
 * (under the dispatcher's pump lock); {@link #tryTakeAtCommit} is a committing thread's,
 * under the store's commit lock, and never calls out of the process.
 */
sealed interface Pacer permits LocalPacer, FleetPacer {

    /** Before a pass's picks: it will ask {@link #tryTake} at most {@code wanted} (at least 1) times. */
    void beginPass(int wanted);

    /** 0: one attempt may start now; else the nanoseconds until one may. */
    long tryTake();

    /** After the pass's picks. */
    void endPass();

    /** A first attempt at its commit: 0 when it may start now, else it waits for a pass. */
    long tryTakeAtCommit();
}
