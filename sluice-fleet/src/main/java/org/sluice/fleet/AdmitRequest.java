package org.sluice.fleet;

/**
 * One admission on its way to {@code admit.lua}: its keys and arguments, and the future
 * its reply entry completes ({@code {1}}, {@code {2, id}}, ...). Whoever gets there first
 * completes it: the batch reply, a failed batch, the caller's budget timer, or a full
 * queue; the others are no-ops.
 */
final class AdmitRequest extends ScriptCall {

    /** Script arguments per request (after the call's count, pending TTL and "now"). */
    static final int ARGS = 6;

    private final String hookKey;
    private final String byteKey;
    private final String dedupeKey;
    private final long hookIncUs;
    private final long hookTolUs;
    private final long byteIncUs;
    private final long byteTolUs;
    private final int flags;
    private final String token;

    /**
     * @param dedupeKey the claim's key, or null when the request claims nothing
     * @param token     the claim token, or null when the request claims nothing
     */
    public AdmitRequest(String hookKey, String byteKey, String dedupeKey,
                        long hookIncUs, long hookTolUs, long byteIncUs, long byteTolUs,
                        boolean chargeRate, String token) {
        this.hookKey = hookKey;
        this.byteKey = byteKey;
        this.dedupeKey = dedupeKey;
        this.hookIncUs = hookIncUs;
        this.hookTolUs = hookTolUs;
        this.byteIncUs = byteIncUs;
        this.byteTolUs = byteTolUs;
        this.flags = (chargeRate ? 1 : 0) | (dedupeKey != null ? 2 : 0);
        this.token = token;
    }

    /** 2, or 3 when the request claims a dedupe key. */
    @Override
    int keyCount() {
        return dedupeKey == null ? 2 : 3;
    }

    @Override
    int argCount() {
        return ARGS;
    }

    /** Writes this request's keys from {@code keys[k]} and arguments from {@code args[a]}. */
    @Override
    void writeTo(String[] keys, int k, String[] args, int a) {
        keys[k] = hookKey;
        keys[k + 1] = byteKey;
        if (dedupeKey != null) {
            keys[k + 2] = dedupeKey;
        }
        args[a] = Long.toString(hookIncUs);
        args[a + 1] = Long.toString(hookTolUs);
        args[a + 2] = Long.toString(byteIncUs);
        args[a + 3] = Long.toString(byteTolUs);
        args[a + 4] = Integer.toString(flags);
        args[a + 5] = token == null ? "" : token;
    }
}
