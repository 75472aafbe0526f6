package org.sluice.edge.intake;

import java.util.List;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookLog;
import org.sluice.edge.store.PendingHook;

/**
 * Writes one batch durably and answers each hook, in order: ACCEPTED or DUPLICATE.
 * {@link HookLog#commit(List)} is the implementation; tests wrap it (for example to
 * hold a batch at a latch) without replacing the store.
 */
@FunctionalInterface
public interface BatchCommitter {

    /**
     * Commits {@code batch} with one durable write.
     *
     * @return one result per hook, in order
     * @throws RuntimeException when the write failed; every hook of the batch is then
     *                          answered {@code STORE_UNAVAILABLE}
     */
    List<CommitResult> commit(List<PendingHook> batch);
}
