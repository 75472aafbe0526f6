package org.sluice.edge.store.rocks;

import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.HookStoreException;

/**
 * Test-only reach into {@link RocksHookStore}'s package-private fault switch, for tests outside
 * this package (the server, admin and intake tests of the 503 {@code store_unavailable}
 * paths). The switch itself stays off the store's public API, so production code cannot
 * turn it on; this class lives in the test sources only.
 */
public final class StoreFaults {

    private StoreFaults() {
    }

    /** While {@code fail} is true every write of {@code store} fails before it reaches RocksDB; reads are unaffected. */
    public static void failWrites(HookStore store, boolean fail) {
        rocks(store).failWrites(fail);
    }

    /**
     * While {@code fail} is true every commit of {@code store} fails at its fsynced write,
     * after its numbers, rows and claims were made (unlike {@link #failWrites}, which fails
     * before any of that).
     */
    public static void failCommitWrites(HookStore store, boolean fail) {
        rocks(store).onCommitWrite(!fail ? null : new GroupCommit.CommitWriteHook() {
            @Override
            public void beforeWrite(long firstSeq) {
                throw new HookStoreException("injected failure of the commit's write (failCommitWrites)");
            }

            @Override
            public void afterWrite(long firstSeq) {
            }
        });
    }

    /** The server's store is the RocksDB one; the fault switches are that implementation's. */
    private static RocksHookStore rocks(HookStore store) {
        return (RocksHookStore) store;
    }
}
