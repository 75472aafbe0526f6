package org.sluice.fleet;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One entry of a batched script call ({@code admit.lua}, {@code limit.lua}): its keys and
 * arguments, and the future its reply entry completes. Whoever gets there first completes
 * it: the batch reply, a failed batch, the caller's budget, or a full queue; the others
 * are no-ops. {@link AdmitBatcher} lays the entries of one call out one after the other.
 */
abstract class ScriptCall extends CompletableFuture<List<Object>> {

    /** Keys this entry takes. */
    abstract int keyCount();

    /** Arguments this entry takes. */
    abstract int argCount();

    /** Writes this entry's keys from {@code keys[k]} and its arguments from {@code args[a]}. */
    abstract void writeTo(String[] keys, int k, String[] args, int a);
}
