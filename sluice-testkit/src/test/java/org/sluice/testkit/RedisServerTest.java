package org.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void startsAnswersAndCountsCommands() {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.call("PING")).isEqualTo("PONG");
            redis.call("SET", "k", "v");
            redis.call("SET", "k2", "v");
            assertThat(redis.commandStats()).containsEntry("set", 2L);
            redis.resetStats();
            assertThat(redis.commandStats()).doesNotContainKey("set");
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
        }
    }

    @Test
    void bundledBinaryRunsWhenThereIsNoneOnPath() {
        try (RedisServer redis = RedisServer.startWith(RedisServer.bundledBinary())) {
            assertThat(redis.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void pausedServerAnswersNothingUntilResumed() {
        try (RedisServer redis = RedisServer.start()) {
            redis.pause();
            assertThatThrownBy(() -> Resp.call(redis.port(), 300, "PING")).isInstanceOf(UncheckedIOException.class);
            redis.resume();
            assertThat(redis.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void restartEmptyKeepsThePortAndLosesKeysAndScripts() {
        try (RedisServer redis = RedisServer.start()) {
            int port = redis.port();
            redis.call("SET", "k", "v");
            String sha = (String) redis.call("SCRIPT", "LOAD", "return 1");
            redis.restartEmpty();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.call("GET", "k")).isNull();
            assertThat(redis.call("SCRIPT", "EXISTS", sha)).isEqualTo(java.util.List.of(0L));
        }
    }

    @Test
    void killedServerRefusesConnections() {
        try (RedisServer redis = RedisServer.start()) {
            redis.kill9();
            assertThat(redis.isAlive()).isFalse();
            assertThatThrownBy(() -> Resp.call(redis.port(), 300, "PING")).isInstanceOf(UncheckedIOException.class);
        }
    }

    @Test
    void proxyForwardsCountsAndSwallows() {
        try (RedisServer redis = RedisServer.start(); TcpProxy proxy = TcpProxy.to(redis.port())) {
            assertThat(Resp.call(proxy.port(), 5_000, "PING")).isEqualTo("PONG");
            assertThat(proxy.bytesUp()).isEqualTo("*1\r\n$4\r\nPING\r\n".length());
            assertThat(proxy.bytesDown()).isEqualTo("+PONG\r\n".length());
            proxy.swallow(true);
            assertThatThrownBy(() -> Resp.call(proxy.port(), 300, "PING")).isInstanceOf(UncheckedIOException.class);
            assertThat(proxy.bytesUp()).isEqualTo("*1\r\n$4\r\nPING\r\n".length());
            proxy.swallow(false);
            proxy.latencyMillis(1);
            assertThat(Resp.call(proxy.port(), 5_000, "PING")).isEqualTo("PONG");
        }
    }
}
