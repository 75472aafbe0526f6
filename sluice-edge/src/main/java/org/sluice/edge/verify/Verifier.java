package org.sluice.edge.verify;

/** Proves a request genuine for one source. Implementations are immutable and thread-safe. */
@FunctionalInterface
public interface Verifier {

    /**
     * @param headers          the request's headers
     * @param body             the whole body as received
     * @param nowEpochSeconds  wall-clock time, for timestamped schemes
     */
    VerifyOutcome verify(HeaderLookup headers, byte[] body, long nowEpochSeconds);
}
