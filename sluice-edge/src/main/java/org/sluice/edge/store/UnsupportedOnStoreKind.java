package org.sluice.edge.store;

/**
 * The store of this kind does not offer this operation (yet): the admin API answers
 * {@code 501 not_supported_on_store_kind}, rather than an answer that would pretend (an
 * empty page from a store that holds no hooks). The message names the kind and the operation.
 */
public class UnsupportedOnStoreKind extends RuntimeException {

    public UnsupportedOnStoreKind(String kind, String operation) {
        super(operation + " is not supported on store.kind " + kind);
    }
}
