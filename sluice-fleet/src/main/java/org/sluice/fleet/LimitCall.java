package org.sluice.fleet;

/** One charge of {@link FleetLimiter} on its way to {@code limit.lua}: its keys and arguments, built by the caller. */
final class LimitCall extends ScriptCall {

    private final String[] keys;
    private final String[] args;

    LimitCall(String[] keys, String[] args) {
        this.keys = keys;
        this.args = args;
    }

    @Override
    int keyCount() {
        return keys.length;
    }

    @Override
    int argCount() {
        return args.length;
    }

    @Override
    void writeTo(String[] keys, int k, String[] args, int a) {
        System.arraycopy(this.keys, 0, keys, k, this.keys.length);
        System.arraycopy(this.args, 0, args, a, this.args.length);
    }
}
