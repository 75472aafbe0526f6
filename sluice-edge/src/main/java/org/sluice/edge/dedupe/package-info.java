/**
 * Dedupe keys: how a source's key is taken from a request (a header, a JSON path in the
 * body, the body's SHA-256), bounded in length and work.
 *
 * <p>May use: {@code verify} (the scheme's default key). No I/O, no state.
 */
package org.sluice.edge.dedupe;
