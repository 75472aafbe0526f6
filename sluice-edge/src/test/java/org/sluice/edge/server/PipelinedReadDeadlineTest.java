package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code http.read_timeout_ms} under pipelining, on real sockets: a request that has begun
 * and not fully arrived is cut whatever was sent before it in the same write, and a
 * request that has fully arrived is never cut while the server works on it.
 *
 * <p>The only durations asserted are upper bounds with generous slack (the timeout plus
 * {@link #SLACK_MILLIS}), never a lower bound or a throughput.
 */
class PipelinedReadDeadlineTest {

    private static final long TIMEOUT_MILLIS = 1_000;
    private static final long SLACK_MILLIS = 9_000;

    @TempDir
    Path dir;

    private static String hook(String body) {
        return "POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    /**
     * One write: a whole small hook, then the headers of a second one that declares 7999999
     * bytes, then nothing more. The first answer used to arrive while the second request
     * was already marked as begun, so no deadline was armed again and the connection (and
     * its body buffer) stayed open for ever.
     */
    @Test
    void aRequestPipelinedBehindAnAnsweredOneAndNeverFinishedIsCutWithinTheReadTimeout() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", read_timeout_ms: %d}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(TIMEOUT_MILLIS));
                Http http = Http.connect(edge.address)) {
            http.write(hook("{}") + "POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 7999999\r\n\r\n");
            assertThat(http.read().status()).isEqualTo(202);
            long answered = System.nanoTime();
            Http.Response cut = http.read(); // the socket's own read timeout (20 s) fails the test if none comes
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - answered);
            assertThat(cut.status()).isEqualTo(408);
            assertThat(json(cut).get("error").asText()).isEqualTo("request_timeout");
            assertThat(cut.header("connection")).isEqualTo("close");
            assertThat(http.closedByServer()).isTrue();
            assertThat(waited).as("cut within read_timeout_ms plus slack").isLessThan(TIMEOUT_MILLIS + SLACK_MILLIS);
        }
    }

    /**
     * One write: two whole hooks, each of whose commits takes longer than the read timeout
     * (the batcher waits {@code intake.max_delay_ms} for company). Both have fully arrived:
     * the server is the one working, so neither may be cut.
     */
    @Test
    void aWholeRequestPipelinedBehindAnotherIsNotCutWhileItsCommitIsSlow() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", read_timeout_ms: %d}
                intake: {partitions: 1, max_batch: 100, max_delay_ms: %d}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(TIMEOUT_MILLIS, 3 * TIMEOUT_MILLIS));
                Http http = Http.connect(edge.address)) {
            http.write(hook("{\"n\":1}") + hook("{\"n\":2}"));
            Http.Response first = http.read();
            Http.Response second = http.read();
            assertThat(first.status()).isEqualTo(202);
            assertThat(second.status()).as("the second hook's slow commit is answered, not cut").isEqualTo(202);
            assertThat(second.header("connection")).isNull();
            assertThat(StoredHooks.all(edge.backends().store())).hasSize(2);
        }
    }
}
