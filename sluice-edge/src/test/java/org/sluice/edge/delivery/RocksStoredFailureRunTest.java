package org.sluice.edge.delivery;

import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.rocks.RocksControlState;
import org.sluice.edge.store.rocks.RocksHookStore;

/** {@link StoredFailureRunContract} on the RocksDB kind: the start is in the store's {@code destinations} family. */
class RocksStoredFailureRunTest extends StoredFailureRunContract {

    @Override
    ControlState openControl(RocksHookStore store) {
        return new RocksControlState(store, 8_000_000);
    }
}
