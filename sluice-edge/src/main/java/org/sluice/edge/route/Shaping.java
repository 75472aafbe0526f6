package org.sluice.edge.route;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.LongSupplier;

/**
 * One application of a {@link Transform} to one hook: what the templates read (the hook's
 * ids and its body, parsed as JSON at most once) and the budget they spend. Every template
 * part and body node {@link #tick}s the clock against the time limit, and every character or
 * byte written is {@link #charge}d against the output bound, so neither a slow run nor a
 * template that multiplies a large body can go on. Not thread-safe: one per attempt.
 */
final class Shaping {

    /** Why a transformation gave up; its message is the delivery's {@code last_error}. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message, null, false, false); // a verdict, not a bug: no stack trace
        }
    }

    private final Transform.Input input;
    private final LongSupplier nanoTime;
    private final long deadline;
    private final long limitMs;
    private final long maxBytes;
    private final HookFacts facts;
    private long spent;

    Shaping(Transform.Input input, LongSupplier nanoTime, long limitMs, long maxBytes) {
        this.input = input;
        this.nanoTime = nanoTime;
        this.limitMs = limitMs;
        this.maxBytes = maxBytes;
        this.deadline = nanoTime.getAsLong() + limitMs * 1_000_000L;
        this.facts = new HookFacts(name -> null, input.body());
    }

    /** Fails once the time limit has passed. */
    void tick() throws Failure {
        if (nanoTime.getAsLong() - deadline > 0) {
            throw new Failure("took longer than its time limit of " + limitMs + " ms");
        }
    }

    /** Counts {@code n} more bytes (or characters) of output; fails past the bound. */
    void charge(long n) throws Failure {
        spent += n;
        if (spent > maxBytes) {
            throw new Failure("made more than its output bound of " + maxBytes + " bytes");
        }
    }

    /** The body as JSON. */
    JsonNode json() throws Failure {
        JsonNode root = facts.json();
        if (root == null) {
            throw new Failure("reads the body, which is not JSON (or nests deeper than " + HookFacts.MAX_DEPTH + ")");
        }
        tick(); // the parse may have been the slow part
        return root;
    }

    /** The value of a path placeholder. */
    JsonNode value(Template.Slot slot) throws Failure {
        JsonNode v = slot.path().find(json());
        if (v == null) {
            throw new Failure("placeholder " + slot.text() + " finds no value in the body");
        }
        return v;
    }

    /** The text of a placeholder. */
    String text(Template.Slot slot) throws Failure {
        if (slot.path() != null) {
            return Template.text(value(slot)); // at most the body's length: the caller charges it
        }
        String v = switch (slot.name()) {
            case "tenant" -> input.tenant();
            case "source" -> input.source();
            default -> input.hookId();
        };
        return v == null ? "" : v;
    }

    /** A stream that charges every byte written to it; an overrun surfaces as {@link Overrun}. */
    OutputStream bounded(OutputStream out) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                count(1);
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                count(len);
                out.write(b, off, len);
            }

            private void count(int n) throws Overrun {
                try {
                    charge(n);
                    tick();
                } catch (Failure f) {
                    throw new Overrun(f);
                }
            }
        };
    }

    /** A {@link Failure} carried through Jackson's writer, which speaks only {@link IOException}. */
    static final class Overrun extends IOException {
        private static final long serialVersionUID = 1L;

        Overrun(Failure cause) {
            super(cause.getMessage(), cause);
        }

        Failure failure() {
            return (Failure) getCause();
        }
    }
}
