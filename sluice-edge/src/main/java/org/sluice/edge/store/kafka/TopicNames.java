package org.sluice.edge.store.kafka;

/**
 * The names of the topics and the group the fleet's log owns under one {@code topic_prefix}
 * (docs/fleet-log.md): the one place they are spelled. The settings of the log
 * ({@link KafkaLogSettings}) and of its follower ({@link FollowerSettings}) name them through
 * it; the control state's settings name their topic with {@link #control}.
 */
public interface TopicNames {

    /** {@code store.kafka.topic_prefix}. */
    String topicPrefix();

    /** {@code <prefix>.hooks}: the hooks log. */
    default String hooksTopic() {
        return topicPrefix() + ".hooks";
    }

    /** {@code <prefix>.retry}: delivery's distant retries. */
    default String retryTopic() {
        return topicPrefix() + ".retry";
    }

    /** {@code <prefix>.dead}: delivery's dead letters. */
    default String deadTopic() {
        return topicPrefix() + ".dead";
    }

    /** {@code <prefix>.delivery}: the delivery group. */
    default String groupId() {
        return deliveryGroup(topicPrefix());
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
