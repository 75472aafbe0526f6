package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class ForwardedForTest {

    static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal); // literals only: no lookup
    }

    static final Predicate<InetAddress> TRUST_10 = a -> a.getAddress().length == 4 && a.getAddress()[0] == 10;

    @Test
    void parsesEveryAcceptedForm() throws Exception {
        assertThat(ForwardedFor.parse("192.0.2.1")).isEqualTo(ip("192.0.2.1"));
        assertThat(ForwardedFor.parse("192.0.2.1:8080")).isEqualTo(ip("192.0.2.1"));
        assertThat(ForwardedFor.parse("2001:db8::1")).isEqualTo(ip("2001:db8::1"));
        assertThat(ForwardedFor.parse("[2001:db8::1]")).isEqualTo(ip("2001:db8::1"));
        assertThat(ForwardedFor.parse("[2001:db8::1]:443")).isEqualTo(ip("2001:db8::1"));
        assertThat(ForwardedFor.parse("::ffff:192.0.2.9")).isEqualTo(ip("192.0.2.9"));
        assertThat(ForwardedFor.parse("::ffff:192.0.2.9").getAddress()).hasSize(4);
    }

    @Test
    void refusesWhatIsNotAnAddress() {
        for (String bad : List.of("", "unknown", "example.com", "192.0.2.1:", "192.0.2.1:99999", "192.0.2.256",
                "[2001:db8::1", "[2001:db8::1]x", "[192.0.2.1]:80", "1.2.3.4:5:6", "_hidden", "2001:db8::1:80:")) {
            assertThat(ForwardedFor.parse(bad)).as(bad).isNull();
        }
    }

    @Test
    void walksFromTheRightSkippingTrustedProxies() throws Exception {
        InetAddress proxy = ip("10.0.0.1");
        assertThat(ForwardedFor.resolve(proxy, List.of("192.0.2.1, 192.0.2.2, 10.9.9.9"), TRUST_10).client())
                .isEqualTo(ip("192.0.2.2"));
        assertThat(ForwardedFor.resolve(proxy, List.of("192.0.2.1", "10.9.9.9"), TRUST_10).client())
                .isEqualTo(ip("192.0.2.1"));
        assertThat(ForwardedFor.resolve(proxy, List.of("10.1.1.1, 10.2.2.2"), TRUST_10).client())
                .as("all trusted: the leftmost").isEqualTo(ip("10.1.1.1"));
        assertThat(ForwardedFor.resolve(proxy, List.of(), TRUST_10).client()).isEqualTo(proxy);
        assertThat(ForwardedFor.resolve(proxy, List.of("x, 192.0.2.3"), TRUST_10).client()).isEqualTo(ip("192.0.2.3"));
        assertThat(ForwardedFor.resolve(proxy, List.of("192.0.2.3, x"), TRUST_10).invalid()).isTrue();
        assertThat(ForwardedFor.resolve(ip("192.0.2.99"), List.of("x"), TRUST_10).client())
                .as("untrusted peer: header ignored").isEqualTo(ip("192.0.2.99"));
    }
}
