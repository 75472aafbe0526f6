package org.sluice.edge.store;

/**
 * The actor of the control changes a thread makes ({@link ControlState#actingAs}), kept in
 * one thread-local for every {@link ControlState} implementation.
 */
public final class Actors {

    private static final ThreadLocal<String> ACTOR = new ThreadLocal<>();

    private Actors() {
    }

    /** Names {@code actor} (blank or null: {@link ControlState#DEFAULT_ACTOR}) until the scope closes. */
    public static ControlState.ActorScope actingAs(String actor) {
        String previous = ACTOR.get();
        ACTOR.set(actor == null || actor.isBlank() ? ControlState.DEFAULT_ACTOR : actor);
        return () -> {
            if (previous == null) {
                ACTOR.remove();
            } else {
                ACTOR.set(previous);
            }
        };
    }

    /** The actor of this thread's open scope, else {@link ControlState#DEFAULT_ACTOR}. */
    public static String current() {
        String actor = ACTOR.get();
        return actor == null ? ControlState.DEFAULT_ACTOR : actor;
    }
}
