package org.sluice.edge.store.kafka;

/**
 * The names of the topics and the group the fleet's log owns under one {@code topic_prefix}
 * (docs/fleet-log.md): the one place they are spelled, for the log, its follower and the
 * control state.
 */
final class TopicNames {

    private TopicNames() {
    }

    /** {@code <prefix>.hooks}: the hooks log. */
    static String hooks(String prefix) {
        return prefix + ".hooks";
    }

    /** {@code <prefix>.retry}: delivery's distant retries. */
    static String retry(String prefix) {
        return prefix + ".retry";
    }

    /** {@code <prefix>.dead}: delivery's dead letters. */
    static String dead(String prefix) {
        return prefix + ".dead";
    }

    /** {@code <prefix>.control}: pauses, overrides and their audit. */
    static String control(String prefix) {
        return prefix + ".control";
    }

    /** {@code <prefix>.delivery}: the delivery group. */
    static String deliveryGroup(String prefix) {
        return prefix + ".delivery";
    }
}
