package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;
import static org.sluice.edge.server.PreReadAdmissionTest.loopback;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Step 3 end to end: which address the per-IP bucket charges. The limit admits exactly one
 * hook per client address (clock frozen), so "admitted, then refused" proves two requests
 * shared a bucket and "admitted twice" proves they did not. 127.0.0.1 is the trusted
 * proxy; other loopback addresses are untrusted peers.
 */
class ClientAddressTest {

    @TempDir
    static Path dir;
    static TestEdge edge;

    @BeforeAll
    static void start() {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", trusted_proxies: ["127.0.0.1/32", "10.0.0.0/8"]}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """);
    }

    @AfterAll
    static void stop() {
        edge.close();
    }

    /** One request from {@code peer}, with one X-Forwarded-For line per entry of {@code xffLines}. */
    static Http.Response send(InetAddress peer, String... xffLines) {
        StringBuilder head = new StringBuilder("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n");
        for (String line : xffLines) {
            head.append("X-Forwarded-For: ").append(line).append("\r\n");
        }
        try (Http http = Http.connect(edge.address, peer)) {
            http.write(head.append("\r\n{}").toString().getBytes(StandardCharsets.ISO_8859_1));
            return http.read();
        }
    }

    static int status(InetAddress peer, String... xff) {
        return send(peer, xff).status();
    }

    static InetAddress proxy() throws Exception {
        return loopback(1);
    }

    @Test
    void anUntrustedPeersHeaderIsIgnored() throws Exception {
        InetAddress peer = loopback(20);
        assertThat(status(peer, "198.51.100.1")).isEqualTo(202);
        assertThat(status(peer, "198.51.100.2")).as("same peer, another claimed client: still the peer's bucket")
                .isEqualTo(429);
        assertThat(status(proxy(), "198.51.100.1")).as("198.51.100.1 was never charged").isEqualTo(202);
    }

    @Test
    void behindATrustedProxyEachClientHasItsOwnBucket() throws Exception {
        assertThat(status(proxy(), "198.51.100.10")).isEqualTo(202);
        assertThat(status(proxy(), "198.51.100.10")).isEqualTo(429);
        assertThat(status(proxy(), "198.51.100.11")).isEqualTo(202);
    }

    @Test
    void theRightmostUntrustedEntryIsTheClient() throws Exception {
        assertThat(status(proxy(), "198.51.100.20, 198.51.100.21")).isEqualTo(202);
        assertThat(status(proxy(), "198.51.100.21")).as("charged as .21").isEqualTo(429);
        assertThat(status(proxy(), "198.51.100.20")).as(".20 is only what .21 claimed").isEqualTo(202);
    }

    @Test
    void trustedProxiesInTheChainAreSkippedAndHeaderLinesJoinInOrder() throws Exception {
        assertThat(status(proxy(), "198.51.100.30, 10.1.2.3")).isEqualTo(202);
        assertThat(status(proxy(), "198.51.100.30")).isEqualTo(429);
        assertThat(status(proxy(), "198.51.100.40", "10.0.0.5")).isEqualTo(202);
        assertThat(status(proxy(), "198.51.100.40")).isEqualTo(429);
    }

    @Test
    void anUnreadableEntryAtOrRightOfTheClientIs400AndNeverFallsBackToTheProxy() throws Exception {
        for (String[] xff : List.of(new String[] {"garbage"}, new String[] {"198.51.100.50, garbage"},
                new String[] {"198.51.100.50, 10.0.0.1, 300.1.1.1"}, new String[] {"198.51.100.50", "nope"},
                new String[] {"198.51.100.50, "}, new String[] {"[2001:db8::1"})) {
            Http.Response r = send(proxy(), xff);
            assertThat(r.status()).as(String.join(" | ", xff)).isEqualTo(400);
            assertThat(json(r).toString()).isEqualTo("{\"error\":\"invalid_forwarded_for\"}");
        }
        assertThat(status(proxy(), "garbage, 198.51.100.51")).as("left of the client: never read").isEqualTo(202);
    }

    @Test
    void portsAndBracketsAreAccepted() throws Exception {
        assertThat(status(proxy(), "198.51.100.60:4711")).isEqualTo(202);
        assertThat(status(proxy(), "198.51.100.60")).isEqualTo(429);
        assertThat(status(proxy(), "[2001:db8:aa::1]:443")).isEqualTo(202);
        assertThat(status(proxy(), "[2001:db8:aa::1]")).isEqualTo(429);
    }

    @Test
    void ipv6AddressesShareABucketPerSlash64() throws Exception {
        assertThat(status(proxy(), "2001:db8:1:2::1")).isEqualTo(202);
        assertThat(status(proxy(), "2001:db8:1:2:ffff:ffff:ffff:9")).as("same /64").isEqualTo(429);
        assertThat(status(proxy(), "2001:db8:1:3::1")).as("the next /64").isEqualTo(202);
    }

    @Test
    void anIpv4MappedAddressCountsAsTheIpv4Address() throws Exception {
        assertThat(status(proxy(), "::ffff:198.51.100.70")).isEqualTo(202);
        assertThat(status(proxy(), "198.51.100.70")).isEqualTo(429);
    }

    @Test
    void aTrustedPeerWithoutTheHeaderIsItselfTheClient() throws Exception {
        InetAddress otherProxyAddress = loopback(1);
        // 127.0.0.1 has been a proxy in every other test and never charged as a client
        assertThat(status(otherProxyAddress)).isEqualTo(202);
        assertThat(status(otherProxyAddress)).isEqualTo(429);
    }
}
