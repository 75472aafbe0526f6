package org.sluice.edge.delivery.targets;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The sealed set and its kinds say the same thing: one {@link Target.Kind} per permitted
 * record, so a switch over {@code kind()} that javac finds exhaustive handles every target.
 */
class TargetKindTest {

    private static final List<Target> ONE_OF_EACH = List.of(
            new HttpTarget(URI.create("http://127.0.0.1:9/hook")),
            new KafkaTarget(List.of("127.0.0.1:9092"), "hooks", KafkaTarget.Key.TENANT, "none", 5, Map.of()),
            new NatsTarget(List.of("nats://127.0.0.1:4222"), "hooks.{tenant}", Optional.empty()));

    @Test
    void eachPermittedRecordHasAKindOfItsOwnAndEveryKindARecord() {
        assertThat(ONE_OF_EACH.stream().map(Object::getClass).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(Target.class.getPermittedSubclasses());
        Map<Target.Kind, Class<?>> byKind = ONE_OF_EACH.stream()
                .collect(Collectors.toMap(Target::kind, Object::getClass));
        assertThat(byKind).containsOnlyKeys(Target.Kind.values());
    }

    @Test
    void theConfiguredTypeIsTheKindsName() {
        assertThat(ONE_OF_EACH.stream().map(Target::type))
                .containsExactly(Arrays.stream(Target.Kind.values()).map(Target.Kind::configName).toArray(String[]::new));
        assertThat(Arrays.stream(Target.Kind.values()).collect(Collectors.toMap(Function.identity(), Target.Kind::configName)))
                .containsEntry(Target.Kind.HTTP, "http").containsEntry(Target.Kind.KAFKA, "kafka")
                .containsEntry(Target.Kind.NATS, "nats");
    }
}
