package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the {@code store.kind: kafka} server tests do to a node: post a hook (a 202 expected)
 * and call its admin API with the token its boot wrote under {@code dir/<node id>}; read the
 * fleet's dead letters as it lists them.
 */
final class KafkaNodes {

    private static final ObjectMapper JSON = new ObjectMapper();

    private KafkaNodes() {
    }

    /** Posts {@code {"n": n}} to {@code /hooks/<source>}; the hook's id, once answered 202. */
    static String accept(TestEdge edge, String source, int n) throws Exception {
        Http.Response r = Http.post(edge.address, "/hooks/" + source, Map.of("Content-Type", "application/json"),
                ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body()).get("id").asText();
    }

    /** {@code method path} with the node's bearer token; {@code body} null for none. */
    static Http.Response admin(Path dir, TestEdge edge, String method, String path, String body) throws Exception {
        String token = Files.readString(dir.resolve(edge.server.config().node().id()).resolve("admin.token")).strip();
        InetSocketAddress at = edge.server.adminAddress();
        try (Http http = Http.connect(new InetSocketAddress("127.0.0.1", at.getPort()))) {
            return http.request(method, path, Map.of("Authorization", "Bearer " + token),
                    body == null ? null : body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * The hook ids of the dead letters {@code edge} lists (one page of up to 1,000), or one
     * {@code "answered <status>"} while it answers otherwise than 200 (503 until the node has
     * read the dead-letter topic to its end).
     */
    static Set<String> deadLetterIds(Path dir, TestEdge edge) {
        try {
            Http.Response r = admin(dir, edge, "GET", "/v1/dead-letters?limit=1000", null);
            if (r.status() != 200) {
                return Set.of("answered " + r.status());
            }
            Set<String> ids = new TreeSet<>();
            JSON.readTree(r.body()).get("dead_letters").forEach(l -> ids.add(l.get("id").asText()));
            return ids;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
