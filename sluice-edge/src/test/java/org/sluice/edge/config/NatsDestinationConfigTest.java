package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.targets.NatsTarget;

/** {@code type: nats} destinations: every key read, every bad value refused with its key path and value. */
class NatsDestinationConfigTest {

    @Test
    void aFullNatsDestinationReadsEveryValue(@TempDir Path dir) throws Exception {
        Path creds = dir.resolve("sluice.creds");
        Files.writeString(creds, "-----BEGIN NATS USER JWT-----\n");
        SluiceConfig c = ConfigLoader.parse("""
                destinations:
                  bus:
                    type: nats
                    servers: ["nats://127.0.0.1:4222", "tls://n2.example.test:4443"]
                    subject: "hooks.{tenant}.{source}"
                    credentials_file: "%s"
                    forward_headers: [Content-Type]
                    ordering: fifo
                    max_in_flight: 4
                """.formatted(creds));
        Destination d = c.destinations().get("bus");
        assertThat(d.type()).isEqualTo("nats");
        assertThat(d.target()).isInstanceOf(NatsTarget.class);
        NatsTarget n = (NatsTarget) d.target();
        assertThat(n.servers()).containsExactly("nats://127.0.0.1:4222", "tls://n2.example.test:4443");
        assertThat(n.subject()).isEqualTo("hooks.{tenant}.{source}");
        assertThat(n.credentialsFile()).contains(creds);
        assertThat(NatsTarget.fill(n.subject(), null, "gh")).isEqualTo("hooks._.gh");
        assertThat(d.maxInFlight()).isEqualTo(4);
    }

    @Test
    void serverUserInfoIsNeverPrinted() {
        SluiceConfig c = ConfigLoader.parse("destinations: {bus: {type: nats, servers: [\"nats://u:hunter2@h.test:4222\"],"
                + " subject: a.b}}");
        assertThat(c.destinations().get("bus").toString()).doesNotContain("hunter2").contains("h.test");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(
                "destinations: {bus: {type: nats, servers: [\"http://u:hunter2@h.test\"], subject: a.b}}"));
        assertThat(e.errors()).singleElement().asString().doesNotContain("hunter2")
                .startsWith("destinations.bus.servers[0] must be a URL with scheme nats, tls, ws or wss, got ");
    }

    @Test
    void badValuesNameTheirKeyAndValue() {
        assertThat(errors("{type: nats, subject: a.b}"))
                .containsExactly("destinations.bus.servers is required: a list of nats:// URLs, e.g. [\"nats://127.0.0.1:4222\"]");
        assertThat(errors("{type: nats, servers: [], subject: a.b}"))
                .containsExactly("destinations.bus.servers must list at least one server URL, got an empty list");
        assertThat(errors("{type: nats, servers: [\"nats://h.test\"]}"))
                .containsExactly("destinations.bus.subject is required: a subject like \"hooks.{tenant}.{source}\"");
        assertThat(errors("{type: nats, servers: [\"nats://h.test\"], subject: \"hooks.{team}\"}"))
                .containsExactly("destinations.bus.subject may hold only {tenant} and {source}, got \"{team}\" in \"hooks.{team}\"");
        assertThat(errors("{type: nats, servers: [\"nats://h.test\"], subject: \"hooks.*\"}")).singleElement().asString()
                .startsWith("destinations.bus.subject must be a NATS subject to publish on").endsWith("got \"hooks.*\"");
        assertThat(errors("{type: nats, servers: [\"nats://h.test\"], subject: \"hooks..x\"}")).singleElement().asString()
                .endsWith("got \"hooks..x\"");
        assertThat(errors("{type: nats, servers: [\"nats://h.test\"], subject: a.b, credentials_file: /no/such.creds}"))
                .containsExactly("destinations.bus.credentials_file must be a readable .creds file, got \"/no/such.creds\"");
        assertThat(errors("{type: nats, servers: [\"nats://h.test\"], subject: a.b, url: \"http://h.test/\"}"))
                .singleElement().asString().startsWith("unknown key \"destinations.bus.url\"");
    }

    /** Issue 46, point 3: {@code ca_file} is read for TLS servers and refused where no server uses TLS. */
    @Test
    void caFileIsReadForTlsServersOnly(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        SluiceConfig c = ConfigLoader.parse("destinations: {bus: {type: nats, servers: [\"tls://n.test:4443\"],"
                + " subject: a.b, ca_file: \"" + ca + "\"}}");
        NatsTarget n = (NatsTarget) c.destinations().get("bus").target();
        assertThat(n.caFile()).contains(ca);
        assertThat(n.tls()).isTrue();
        assertThat(((NatsTarget) ConfigLoader.parse("destinations: {bus: {type: nats, servers: [\"nats://n.test\"],"
                + " subject: a.b}}").destinations().get("bus").target()).tls()).isFalse();
        assertThat(errors("{type: nats, servers: [\"nats://u:hunter2@n.test\"], subject: a.b, ca_file: \"" + ca + "\"}"))
                .containsExactly("destinations.bus.ca_file applies only to tls:// or wss:// servers, got \"" + ca
                        + "\" with [nats://***@n.test]");
        assertThat(errors("{type: nats, servers: [\"tls://n.test\"], subject: a.b, ca_file: /no/such.pem}"))
                .containsExactly("destinations.bus.ca_file must be a readable file of PEM certificates, got"
                        + " \"/no/such.pem\" (no such file)");
    }

    /**
     * A file name holding a NUL character is no path on any system: {@code credentials_file}
     * threw it out of the loader ({@code InvalidPathException}) instead of naming the key.
     */
    @Test
    void aCredentialsFileThatIsNoPathIsAProblemNotACrash() {
        assertThat(errors("{type: nats, servers: [\"nats://h.test\"], subject: a.b, credentials_file: \"a\\0b\"}"))
                .containsExactly("destinations.bus.credentials_file must be a readable .creds file, got \"a\\u0000b\"");
        assertThat(errors("{type: nats, servers: [\"tls://h.test\"], subject: a.b, ca_file: \"a\\0b\"}"))
                .containsExactly("destinations.bus.ca_file must be a file system path, got \"a\\u0000b\"");
    }

    /**
     * A tenant id may hold dots, and a dot inside {@code {tenant}} splits the subject:
     * {@code acme.} made {@code hooks.acme..gh} (no subject: every hook dead) and
     * {@code acme.billing} a token that {@code hooks.acme.>} subscribers receive too.
     */
    @Test
    void aTenantWithADotIsRefusedWhereASubjectFillsTenant() {
        String nats = "destinations: {bus: {type: nats, servers: [\"nats://h.test\"], subject: \"%s\"}}\n"
                + "sources: {gh: {tenant: \"%s\", verify: {scheme: none}, deliver_to: [bus]}}";
        for (String tenant : List.of("acme.", "acme.billing", "a.b.c")) {
            ConfigException e = catchThrowableOfType(ConfigException.class,
                    () -> ConfigLoader.parse(nats.formatted("hooks.{tenant}.{source}", tenant)));
            assertThat(e).as("refused: %s", tenant).isNotNull();
            assertThat(e.errors()).containsExactly("sources.gh.tenant " + "\"" + tenant + "\""
                    + " cannot fill {tenant} in destinations.bus.subject \"hooks.{tenant}.{source}\": a tenant id there"
                    + " must be one subject token, without a dot");
        }
        // a subject without {tenant} takes any tenant id; one with {tenant} any id without dots
        assertThat(ConfigLoader.parse(nats.formatted("hooks.{source}", "acme.billing")).sources()).containsKey("gh");
        assertThat(ConfigLoader.parse(nats.formatted("hooks.{tenant}.{source}", "acme-billing")).sources()).containsKey("gh");
    }

    private static List<String> errors(String destination) {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("destinations: {bus: " + destination + "}"));
        assertThat(e).as("refused: %s", destination).isNotNull();
        return e.errors();
    }
}
