package org.sluice.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The admin routes whose body is one JSON object with known fields (a replay, a secret
 * rotation) answer a body of another shape with their shape message, and an unknown field
 * by its name (the first 80 characters) and the fields they know, in order: one reading
 * of such a body for both ({@link AdminJson#fieldsProblem}).
 */
class UnknownFieldTest {

    @Test
    void aReplayWithAnUnknownFieldNamesItAndTheKnownFields() {
        AdminResponse r = DeliveryAdmin.none().replay("app", body("{\"from\":\"2026-12-01T00:00:00Z\",\"extra\":1}"),
                "bob", null);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.bodyText()).isEqualTo("{\"error\":\"invalid_replay\",\"message\":\"unknown field extra;"
                + " the fields are from, to, dead_only, rate and force\"}");
    }

    @Test
    void aRotationWithALongUnknownFieldNamesItsFirst80Characters() {
        String name = "f".repeat(100);
        AdminResponse r = new SigningAdmin(null, () -> 0).rotate("app", body("{\"secret\":\"x\",\"" + name + "\":1}"),
                "alice", null);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.bodyText()).isEqualTo("{\"error\":\"invalid_secret\",\"message\":\"unknown field " + "f".repeat(80)
                + "...; the fields are secret and overlap_seconds\"}");
    }

    @Test
    void aBodyThatIsNoObjectIsAnsweredWithTheRouteShape() {
        AdminResponse replay = DeliveryAdmin.none().replay("app", body("[]"), "bob", null);
        assertThat(replay.status()).isEqualTo(400);
        assertThat(replay.bodyText()).contains("\"error\":\"invalid_replay\"").contains("the body must be");
        AdminResponse rotate = new SigningAdmin(null, () -> 0).rotate("app", body("\"whsec_x\""), "alice", null);
        assertThat(rotate.status()).isEqualTo(400);
        assertThat(rotate.bodyText()).contains("\"error\":\"invalid_secret\"").contains("the body must be one JSON object");
    }

    private static byte[] body(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
