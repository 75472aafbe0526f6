package org.sluice.fleet;

import java.util.List;

/**
 * One entry of {@code admit.lua}'s reply, read defensively: a reply is input from the
 * network, so every shape other than the five the script writes is {@link Malformed}
 * (never a {@link ClassCastException}, never a truncated number read as a valid code).
 *
 * <pre>
 *   {1}               -> Answer(Admitted(token))
 *   {2, hook id}      -> Answer(Duplicate(hook id))
 *   {3, ttl ms >= 1}  -> Answer(Pending(ttl))
 *   {4, 1|2, wait us} -> Answer(RateLimited(TENANT|TENANT_BYTES, wait rounded up to ms))
 *   {0, message}      -> Refused(message): the store failed this request alone, which changed nothing
 *   anything else     -> Malformed(what)
 * </pre>
 */
sealed interface AdmitReply {

    /** The store decided the request. */
    record Answer(FleetAnswer answer) implements AdmitReply {
    }

    /** The script failed this request alone (it wrote nothing); {@code detail} is the store's message. */
    record Refused(String detail) implements AdmitReply {
    }

    /** Not a shape the script writes. */
    record Malformed(String what) implements AdmitReply {
    }

    /** Longest part of a hostile reply quoted in a message. */
    int QUOTE_MAX = 120;

    /** Reads one reply entry; {@code token} is the request's claim token (null when it claims nothing). */
    static AdmitReply parse(Object entry, String token) {
        if (!(entry instanceof List<?> list) || list.isEmpty() || !(list.get(0) instanceof Long code)) {
            return malformed(entry);
        }
        long c = code;
        if (c == 1 && list.size() == 1) {
            return new Answer(new FleetAnswer.Admitted(token));
        }
        if (c == 2 && list.size() == 2 && list.get(1) instanceof String hookId) {
            return new Answer(new FleetAnswer.Duplicate(hookId));
        }
        if (c == 3 && list.size() == 2 && list.get(1) instanceof Long ttl && ttl >= 1) {
            return new Answer(new FleetAnswer.Pending(ttl));
        }
        if (c == 4 && list.size() == 3 && list.get(1) instanceof Long scope && list.get(2) instanceof Long waitUs
                && waitUs >= 1) {
            FleetAnswer.Scope s = scope == FleetGcra.SCOPE_TENANT ? FleetAnswer.Scope.TENANT
                    : scope == FleetGcra.SCOPE_TENANT_BYTES ? FleetAnswer.Scope.TENANT_BYTES : null;
            if (s != null) {
                return new Answer(new FleetAnswer.RateLimited(s, waitUs / 1000 + (waitUs % 1000 == 0 ? 0 : 1)));
            }
        }
        if (c == 0 && list.size() == 2 && list.get(1) instanceof String detail) {
            return new Refused(detail);
        }
        return malformed(entry);
    }

    private static Malformed malformed(Object entry) {
        String shown = String.valueOf(entry);
        if (shown.length() > QUOTE_MAX) {
            shown = shown.substring(0, QUOTE_MAX) + "...";
        }
        return new Malformed("unexpected admit reply entry " + shown);
    }
}
