package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostPortTest {

    @Test
    void parsesTheUsualShapes() {
        assertThat(HostPort.parse("127.0.0.1:9090")).isEqualTo(new HostPort("127.0.0.1", 9090));
        assertThat(HostPort.parse("0.0.0.0:0")).isEqualTo(new HostPort("0.0.0.0", 0));
        assertThat(HostPort.parse("localhost:8080")).isEqualTo(new HostPort("localhost", 8080));
        assertThat(HostPort.parse("[::1]:9090")).isEqualTo(new HostPort("::1", 9090));
        assertThat(HostPort.parse("[::]:8080")).isEqualTo(new HostPort("::", 8080));
    }

    @Test
    void printsBackWhatItParsed() {
        assertThat(HostPort.parse("[::1]:9090")).hasToString("[::1]:9090");
        assertThat(HostPort.parse("127.0.0.1:9090")).hasToString("127.0.0.1:9090");
    }

    @Test
    void refusesWithAReason() {
        assertThatThrownBy(() -> HostPort.parse("8080")).hasMessage("the port is missing");
        assertThatThrownBy(() -> HostPort.parse(":8080")).hasMessage("the host is missing (use 0.0.0.0 for every interface)");
        assertThatThrownBy(() -> HostPort.parse("::1:8080"))
                .hasMessage("an IPv6 address must be written in brackets, e.g. [::1]:8080");
        assertThatThrownBy(() -> HostPort.parse("[::1]8080")).hasMessage("a bracketed IPv6 address must be followed by :port");
        assertThatThrownBy(() -> HostPort.parse("[nope]:80")).hasMessage("\"nope\" is not an IPv6 address");
        assertThatThrownBy(() -> HostPort.parse("999.1.1.1:80")).hasMessage("\"999.1.1.1\" is not an IPv4 address");
        assertThatThrownBy(() -> HostPort.parse("host_name:80")).hasMessage("\"host_name\" is not a host name or address");
        assertThatThrownBy(() -> HostPort.parse("127.0.0.1:http")).hasMessage("the port must be a number from 0 to 65535");
        assertThatThrownBy(() -> HostPort.parse("127.0.0.1:65536")).hasMessage("the port must be a number from 0 to 65535");
    }
}
