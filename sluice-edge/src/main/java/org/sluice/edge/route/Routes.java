package org.sluice.edge.route;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A source's {@code deliver_to} as the commit path applies it: the destinations in file
 * order, each with its filter or none. {@link #select} runs once per hook, before the
 * commit: a source without filters hands out one shared list; with filters, the body is
 * parsed at most once, and only when a {@code json} predicate is evaluated.
 */
public final class Routes {

    private static final Routes NONE = new Routes(List.of(), Map.of(), EventType.NONE);

    private final List<String> all;
    private final String[] names;
    private final Filter[] filters;
    private final boolean filtered;
    private final EventType eventType;

    private Routes(List<String> all, Map<String, Filter> filters, EventType eventType) {
        this.eventType = eventType;
        this.all = List.copyOf(all);
        this.names = this.all.toArray(new String[0]);
        this.filters = new Filter[names.length];
        boolean any = false;
        for (int i = 0; i < names.length; i++) {
            this.filters[i] = filters.get(names[i]);
            any |= this.filters[i] != null;
        }
        this.filtered = any;
    }

    /**
     * @param deliverTo the destinations in {@code deliver_to} order
     * @param filters   the filter of each filtered one (the others get every hook)
     */
    public static Routes of(List<String> deliverTo, Map<String, Filter> filters) {
        return of(deliverTo, filters, EventType.NONE);
    }

    /**
     * @param deliverTo the destinations in {@code deliver_to} order
     * @param filters   the filter of each filtered one (the others get every hook)
     * @param eventType where the source's hooks name their event type, which {@code event_type} filters test
     */
    public static Routes of(List<String> deliverTo, Map<String, Filter> filters, EventType eventType) {
        return deliverTo.isEmpty() ? NONE : new Routes(deliverTo, filters, eventType);
    }

    /** Every hook to every destination of {@code deliverTo}. */
    public static Routes unfiltered(List<String> deliverTo) {
        return of(deliverTo, Map.of());
    }

    /** Every destination, filtered or not, in {@code deliver_to} order. */
    public List<String> all() {
        return all;
    }

    /**
     * The destinations a hook is delivered to.
     *
     * @param headers a header's (first) value by name, case-insensitively; null when absent
     * @param body    the body as received
     */
    public List<String> select(Function<String, String> headers, byte[] body) {
        if (!filtered) {
            return all;
        }
        HookFacts hook = new HookFacts(headers, body, eventType);
        List<String> out = new ArrayList<>(names.length);
        for (int i = 0; i < names.length; i++) {
            if (filters[i] == null || filters[i].test(hook)) {
                out.add(names[i]);
            }
        }
        return out;
    }
}
