package org.sluice.edge.delivery.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.BreakerSettings;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.delivery.targets.NatsTarget;
import org.sluice.edge.server.SelfSigned;
import org.sluice.edge.store.StoredHook;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.NatsServer;

/**
 * Issue 46, point 3: a {@code tls://} NATS server is held to its host name. A real
 * {@code nats-server --tls} with a certificate made here by the JDK's keytool ({@link SelfSigned}), either for
 * {@code 127.0.0.1} (the name in the server URL) or for another name: the other name is
 * refused, with the reason in the attempt's error ({@code last_error}), whether the
 * certificate is trusted through the JVM's default context or through {@code ca_file};
 * the right name with {@code ca_file} is delivered into a stream.
 */
class NatsTlsHostnameTest {

    @TempDir
    Path dir;

    @BeforeAll
    static void natsServerPresent() {
        assumeTrue(NatsServer.availableOrSayWhy(), NatsServer.MISSING);
    }

    private static NatsServer tlsServer(SelfSigned cert) {
        return NatsServer.start("--tls", "--tlscert", cert.certFile().toString(), "--tlskey", cert.keyFile().toString());
    }

    private static String tlsUrl(NatsServer nats) {
        return nats.url().replace("nats://", "tls://");
    }

    private static Destination destination(String url, Optional<Path> caFile) {
        return new Destination("t", new NatsTarget(List.of(url), "tls.{tenant}", Optional.empty(), caFile), 10_000, 4,
                Optional.empty(), OutboundHeaders.of("destinations.t", List.of(), Map.of(), null, "test"), Ordering.NONE,
                RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    private static StoredHook hook(String id) {
        return new StoredHook(id, "acme", "github", null, 1_796_286_158_123L, Map.of(),
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    private static final String WRONG_NAME = "No subject alternative names matching IP address 127.0.0.1 found";

    /**
     * Sends until an attempt is not refused for want of a connection, or is refused with the
     * certificate's reason (which the client reports on its own thread, so perhaps only
     * after its first connect failed).
     */
    private static AttemptOutcome refused(NatsTransport t, Destination d) {
        t.register(d);
        AttemptOutcome[] last = new AttemptOutcome[1];
        Eventually.until("an attempt not refused, or refused with the certificate's reason", () -> {
            last[0] = t.send(d, hook("h-1"), 1, 0).orTimeout(30, TimeUnit.SECONDS).join();
            return !(last[0].result() instanceof AttemptResult.Failed f && f.failure() == AttemptResult.Failure.CONNECT)
                    || last[0].error().contains(WRONG_NAME);
        });
        return last[0];
    }

    private static void assertRefusedForTheName(AttemptOutcome o) {
        assertThat(o.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.CONNECT));
        assertThat(o.error()).as("last_error").startsWith("cannot connect to [tls://127.0.0.1:")
                .contains(WRONG_NAME);
    }

    /**
     * Before the fix the client took the JVM's default context as it was, without endpoint
     * identification: a certificate that context trusts, issued for another name, was
     * accepted and the hook delivered to whoever held it.
     */
    @Test
    void aCertificateTheJvmTrustsButForAnotherNameIsRefused() throws Exception {
        SelfSigned other = SelfSigned.in(dir, "other", "nats.other.test", "dns:nats.other.test");
        SSLContext before = SSLContext.getDefault();
        try (NatsServer nats = tlsServer(other)) {
            SSLContext.setDefault(other.client());
            try (NatsTransport t = new NatsTransport()) {
                assertRefusedForTheName(refused(t, destination(tlsUrl(nats), Optional.empty())));
            }
        } finally {
            SSLContext.setDefault(before);
        }
    }

    @Test
    void aCaFileCertificateForAnotherNameIsRefused() throws Exception {
        SelfSigned other = SelfSigned.in(dir, "other", "nats.other.test", "dns:nats.other.test");
        try (NatsServer nats = tlsServer(other); NatsTransport t = new NatsTransport()) {
            assertRefusedForTheName(refused(t, destination(tlsUrl(nats), Optional.of(other.certFile()))));
        }
    }

    @Test
    void theRightNameTrustedThroughCaFileIsDelivered() throws Exception {
        SelfSigned right = SelfSigned.in(dir, "right", "localhost", "ip:127.0.0.1");
        try (NatsServer nats = tlsServer(right);
             Connection c = Nats.connect(new Options.Builder().server(tlsUrl(nats)).sslContext(right.client()).build());
             NatsTransport t = new NatsTransport()) {
            c.jetStreamManagement().addStream(StreamConfiguration.builder().name("TLS").subjects("tls.>")
                    .storageType(StorageType.File).build());
            Destination d = destination(tlsUrl(nats), Optional.of(right.certFile()));
            t.register(d);
            AttemptOutcome[] last = new AttemptOutcome[1];
            Eventually.until("the connection to be up", () -> {
                last[0] = t.send(d, hook("h-ok"), 1, 0).orTimeout(30, TimeUnit.SECONDS).join();
                return !(last[0].result() instanceof AttemptResult.Failed f && f.failure() == AttemptResult.Failure.CONNECT);
            });
            assertThat(last[0].result()).as(String.valueOf(last[0].error())).isEqualTo(AttemptResult.acknowledged());
            assertThat(c.jetStreamManagement().getStreamInfo("TLS").getStreamState().getMsgCount()).isEqualTo(1);
        }
    }
}
