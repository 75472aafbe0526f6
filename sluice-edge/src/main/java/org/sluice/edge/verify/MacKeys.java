package org.sluice.edge.verify;

import java.security.MessageDigest;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;

/**
 * The MAC keys of one source (1 to 8 secrets, in configured order) and the matching step
 * every scheme ends with.
 *
 * <p>Thread model: {@code javax.crypto.Mac} is stateful and not thread-safe. Each secret's
 * Mac is initialised once at boot (the key schedule, i.e. the inner and outer padded keys,
 * is computed then) and kept as a prototype. Each thread that verifies gets its own clones
 * of the prototypes and an output buffer, created on its first request for this source and
 * reused after: a verification allocates nothing here. The number of copies is bounded by
 * threads x sources x secrets, all fixed by configuration (the HTTP layer verifies on a fixed
 * set of threads; were it to use a virtual thread per request, each request would clone its
 * Macs: still correct, just not allocation-free). A Mac always finishes with
 * {@code doFinal}, which resets it, so a clone is clean for its next use.
 *
 * <p>Comparison is {@link MessageDigest#isEqual}, constant-time in the content of the two
 * arrays; callers have already checked the presented signature's length.
 */
final class MacKeys {

    private final HmacAlgorithm algorithm;
    private final List<byte[]> keys;
    private final Mac[] prototypes;
    private final ThreadLocal<PerThread> perThread = ThreadLocal.withInitial(this::newPerThread);

    MacKeys(HmacAlgorithm algorithm, List<byte[]> keys) {
        this.algorithm = algorithm;
        this.keys = List.copyOf(keys);
        this.prototypes = new Mac[keys.size()];
        for (int i = 0; i < prototypes.length; i++) {
            prototypes[i] = algorithm.newMac(keys.get(i));
        }
    }

    /** Length in bytes of this source's MACs; a presented signature of any other length is malformed. */
    int macLength() {
        return algorithm.length;
    }

    /**
     * True when, for some secret, MAC(preamble || body) equals one of the first {@code count}
     * presented signatures.
     */
    boolean matchesAny(byte[][] presented, int count, byte[] preamble, byte[] body) {
        PerThread state = perThread.get();
        byte[] out = state.out;
        for (Mac mac : state.macs) {
            mac.update(preamble);
            mac.update(body);
            try {
                mac.doFinal(out, 0);
            } catch (ShortBufferException impossible) {
                throw new IllegalStateException(impossible);
            }
            for (int j = 0; j < count; j++) {
                if (MessageDigest.isEqual(out, presented[j])) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Shorthand for a single presented signature. */
    boolean matches(byte[] presented, byte[] preamble, byte[] body) {
        PerThread state = perThread.get();
        state.one[0] = presented;
        try {
            return matchesAny(state.one, 1, preamble, body);
        } finally {
            state.one[0] = null;
        }
    }

    private PerThread newPerThread() {
        Mac[] macs = new Mac[prototypes.length];
        for (int i = 0; i < macs.length; i++) {
            macs[i] = copy(i);
        }
        return new PerThread(macs, new byte[algorithm.length]);
    }

    /** A clone of prototype i; a provider whose Macs cannot be cloned gets a fresh init instead. */
    private Mac copy(int i) {
        Mac prototype = prototypes[i];
        synchronized (prototype) { // only read here, but clone() is not documented thread-safe
            try {
                return (Mac) prototype.clone();
            } catch (CloneNotSupportedException e) {
                return algorithm.newMac(keys.get(i));
            }
        }
    }

    private static final class PerThread {
        final Mac[] macs;
        final byte[] out;
        final byte[][] one = new byte[1][];

        PerThread(Mac[] macs, byte[] out) {
            this.macs = macs;
            this.out = out;
        }
    }
}
