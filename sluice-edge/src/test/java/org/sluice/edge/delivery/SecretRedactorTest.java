package org.sluice.edge.delivery;

import org.sluice.edge.delivery.targets.Target;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.delivery.targets.KafkaTarget;
import org.sluice.edge.delivery.targets.NatsTarget;

/** Every place a destination's secret can be configured is masked in an error text (issue 46, point 1). */
class SecretRedactorTest {

    private static Destination destination(Target target, Map<String, String> headers) {
        return new Destination("d", target, 1000, 1, Optional.empty(),
                OutboundHeaders.of("destinations.d", List.of(), headers, null, "test"), Ordering.NONE,
                RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    @Test
    void natsUserInfoAndItsPasswordAreMaskedWhereverAClientPrintsThem() {
        SecretRedactor r = SecretRedactor.of(destination(new NatsTarget(
                List.of("nats://alice:S3cret%2FPass@h.test:4222", "tls://tok3nOnly@h2.test:4443"), "a.b", Optional.empty()),
                Map.of()));
        String text = r.redact("Unable to connect to NATS servers: [nats://alice:S3cret%2FPass@h.test:4222];"
                + " auth failed for S3cret/Pass, token tok3nOnly, and S3cret%2FPass");
        assertThat(text).doesNotContain("S3cret", "tok3nOnly").contains("nats://***@h.test:4222");
    }

    @Test
    void kafkaSaslPasswordsAndSecretPropertiesAreMasked() {
        SecretRedactor r = SecretRedactor.of(destination(new KafkaTarget(List.of("127.0.0.1:9"), "t", KafkaTarget.Key.SOURCE,
                "none", 0, Map.of("sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" password=\"K4fkaPass\";",
                        "ssl.truststore.password", "Trust5tore", "ssl.key.password", "K3yPass", "client.id", "sluice")),
                Map.of()));
        String text = r.redact("login failed: password K4fkaPass; truststore Trust5tore; key K3yPass; client sluice");
        assertThat(text).doesNotContain("K4fkaPass", "Trust5tore", "K3yPass").contains("client sluice");
    }

    @Test
    void configuredHeaderValuesAndAnyUrlUserInfoAreMasked() {
        SecretRedactor r = SecretRedactor.of(destination(new HttpTarget(URI.create("http://127.0.0.1:9/hook")),
                Map.of("Authorization", "Bearer H3aderToken")));
        assertThat(r.redact("sent Bearer H3aderToken to https://u:p4ss@x.test/ and failed"))
                .isEqualTo("sent *** to https://***@x.test/ and failed");
        assertThat(r.redact(null)).isNull();
    }
}
