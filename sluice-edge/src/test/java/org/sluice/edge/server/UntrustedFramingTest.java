package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 46, point 2: a {@code 400 invalid_header} kept the connection, so a body that was
 * framed by a header Sluice did not trust ({@code Content-Length : 33}, a space before the
 * colon) was read as a second request and answered. Behind a proxy that honours the
 * malformed header, one sender would get another's answer. Now every answer to a request
 * whose framing Sluice cannot trust ends the connection after it: the smuggled request is
 * never answered.
 */
class UntrustedFramingTest {

    @TempDir
    static Path dir;
    static TestEdge edge;

    @BeforeAll
    static void start() {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", read_timeout_ms: 5000}
                sources:
                  free: {verify: {scheme: none}}
                """);
    }

    @AfterAll
    static void stop() {
        edge.close();
    }

    /** A request the server must not see: if it is answered, the connection was kept. */
    private static final String SMUGGLED = "GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n";

    /**
     * Each way of writing a framing header wrongly, with the error it is answered with; the
     * body after it carries a request of its own.
     */
    private static final Map<String, String> WRONG_FRAMING_HEADERS = Map.of(
            "Content-Length : " + SMUGGLED.length(), "invalid_header",
            "Content-Length\t: " + SMUGGLED.length(), "invalid_header",
            "Content Length: " + SMUGGLED.length(), "invalid_header",
            "Transfer-Encoding : chunked", "invalid_header",
            "Transfer-Encoding\u000b: chunked", "invalid_header",
            "Content-Length: " + SMUGGLED.length() + "\u0001", "bad_request",
            "Content-Length: +" + SMUGGLED.length(), "bad_request");

    @Test
    void aRequestWhoseFramingHeaderIsMalformedIsAnsweredAndItsConnectionEnds() {
        for (Map.Entry<String, String> wrong : WRONG_FRAMING_HEADERS.entrySet()) {
            String header = wrong.getKey();
            try (Http http = Http.connect(edge.address)) {
                http.write("POST /hooks/free HTTP/1.1\r\nHost: localhost\r\n" + header + "\r\n\r\n" + SMUGGLED);
                Http.Response first = http.read();
                assertThat(first.status()).as(header).isEqualTo(400);
                assertThat(first.body()).as(header).startsWith("{\"error\":\"" + wrong.getValue() + "\"");
                assertThat(first.header("connection")).as(header).isEqualTo("close");
                assertThat(http.closedByServer()).as("%s: no second answer, the connection ends", header).isTrue();
            }
        }
    }

    @Test
    void aWellFramedRequestWithABadOrdinaryHeaderEndsItsConnectionToo() {
        // Sluice cannot know which header a proxy in front of it took for framing: any 400
        // invalid_header ends the connection, whatever header it names.
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: localhost\r\nX@Odd: v\r\nContent-Length: 2\r\n\r\n{}"
                    + SMUGGLED);
            Http.Response first = http.read();
            assertThat(first.status()).isEqualTo(400);
            assertThat(first.body()).isEqualTo("{\"error\":\"invalid_header\",\"header\":\"X@Odd\"}");
            assertThat(http.closedByServer()).isTrue();
        }
    }
}
