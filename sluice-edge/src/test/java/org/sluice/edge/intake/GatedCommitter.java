package org.sluice.edge.intake;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;

/**
 * The real store's commit, held at a gate: each batch announces that it has started and
 * waits for a permit before writing. Lets a test know exactly which batch is in flight.
 */
final class GatedCommitter implements BatchCommitter {

    private final HookStore store;
    private final Semaphore started = new Semaphore(0);
    private final Semaphore permits = new Semaphore(0);
    final CountDownLatch never = new CountDownLatch(1);

    GatedCommitter(HookStore store) {
        this.store = store;
    }

    @Override
    public List<CommitResult> commit(List<PendingHook> batch) {
        started.release();
        permits.acquireUninterruptibly();
        return store.commit(batch);
    }

    /** Waits until a batch has started (entered commit); fails the test after 30 s. */
    void awaitStarted() throws InterruptedException {
        if (!started.tryAcquire(30, TimeUnit.SECONDS)) {
            throw new AssertionError("no batch started within 30 s");
        }
    }

    /** Lets {@code n} batches write. */
    void release(int n) {
        permits.release(n);
    }

    /** Lets every batch through from now on. */
    void open() {
        permits.release(1_000_000);
    }
}
