package org.sluice.edge.server;

/** {@link DeliveryParityContract} on the default store, {@code store.kind: rocksdb}: one node. */
class RocksDbDeliveryParityTest extends DeliveryParityContract {

    @Override
    int nodeCount() {
        return 1;
    }

    @Override
    String storeSections(String prefix) {
        return "";
    }
}
