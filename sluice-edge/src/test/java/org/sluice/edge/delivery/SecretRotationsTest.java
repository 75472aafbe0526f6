package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.store.rocks.RocksControlState;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * Runtime rotation of a destination's signing keys over the real control state (RocksDB on
 * a temp dir): during the overlap the old and the new secret both sign and each verifies
 * with the Standard Webhooks check; from the overlap's end (the attempt's time, a manual
 * clock) only the new one signs; the rotation survives a restart, and the control state
 * wins over the configuration for every key it has seen.
 */
class SecretRotationsTest {

    private static final String OLD = "whsec_b2xkLXNlY3JldC1rZXktMDAx";
    private static final String NEW = "whsec_bmV3LXNlY3JldC1rZXktMDAy";
    private static final String THIRD = "whsec_dGhpcmQtc2VjcmV0LWtleS0z";
    private static final long T0 = 1_800_000_000_000L;
    private static final long HOUR = 3_600;
    private static final byte[] BODY = "{\"type\":\"invoice.paid\"}".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    private RocksHookStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private RocksControlState openControl() {
        if (store != null) {
            store.close();
        }
        store = RocksHookStore.open(dir.resolve("store"), RocksHookStore.Options.defaults().withWallClock(() -> T0));
        return new RocksControlState(store, 8_000_000);
    }

    private static SluiceConfig config(String signing) {
        return ConfigLoader.parse("""
                destinations:
                  app:
                    url: "http://127.0.0.1:9/in"
                    signing: %s
                  plain: {url: "http://127.0.0.1:9/plain"}
                sources:
                  gh: {tenant: acme, verify: {scheme: none}, deliver_to: [app, plain]}
                """.formatted(signing), Map.of(), "test");
    }

    private static SluiceConfig hmac(String... secrets) {
        return config("{scheme: standard_webhooks, secrets: [" + String.join(", ", Arrays.stream(secrets).map(s -> "\"" + s + "\"").toList())
                + "]}");
    }

    private static WebhookSigner signer(SluiceConfig c) {
        return c.destinations().get("app").headers().signer().orElseThrow();
    }

    private static SecretRotations rotations(SluiceConfig c, RocksControlState control) {
        SecretRotations r = new SecretRotations(c.destinations().values(), control);
        r.load();
        return r;
    }

    /** Whether a receiver holding {@code secret} accepts the attempt signed at {@code epochSeconds}. */
    private static boolean verifies(WebhookSigner signer, String secret, long epochSeconds) {
        String header = signer.signature("msg_1", epochSeconds, BODY);
        return new StandardWebhooksCheck(secret, 300).genuine("msg_1", Long.toString(epochSeconds), header, BODY, epochSeconds);
    }

    private static int entries(WebhookSigner signer, long epochSeconds) {
        return signer.signature("msg_1", epochSeconds, BODY).split(" ").length;
    }

    @Test
    void duringTheOverlapBothSecretsSignAndAfterItOnlyTheNewOne() {
        SluiceConfig c = hmac(OLD);
        SecretRotations rotations = rotations(c, openControl());
        WebhookSigner signer = signer(c);
        long t0 = T0 / 1000;
        assertThat(entries(signer, t0)).isEqualTo(1);

        SecretRotations.Outcome outcome = rotations.rotate("app", NEW, HOUR, T0);
        assertThat(outcome).isInstanceOf(SecretRotations.Done.class);
        assertThat(((SecretRotations.Done) outcome).retired())
                .containsExactly(Map.entry(SigningKey.fingerprintOf(OLD), T0 + HOUR * 1000));

        for (long at : new long[] {t0, t0 + 1, t0 + HOUR - 1}) { // the overlap: both sign, either verifies
            assertThat(entries(signer, at)).as("at +" + (at - t0) + " s").isEqualTo(2);
            assertThat(verifies(signer, OLD, at)).as("old at +" + (at - t0) + " s").isTrue();
            assertThat(verifies(signer, NEW, at)).as("new at +" + (at - t0) + " s").isTrue();
        }
        for (long at : new long[] {t0 + HOUR, t0 + 30 * 86_400}) { // from its end: only the new one
            assertThat(entries(signer, at)).as("at +" + (at - t0) + " s").isEqualTo(1);
            assertThat(verifies(signer, OLD, at)).as("old at +" + (at - t0) + " s").isFalse();
            assertThat(verifies(signer, NEW, at)).as("new at +" + (at - t0) + " s").isTrue();
        }
    }

    @Test
    void aRotationSurvivesARestartAndTheControlStateWinsForEveryKeyItHasSeen() {
        rotations(hmac(OLD), openControl()).rotate("app", NEW, HOUR, T0);
        long t0 = T0 / 1000;

        // restarted with the same file: the rotation holds, the old secret ends where it did
        SluiceConfig same = hmac(OLD);
        rotations(same, openControl());
        assertThat(verifies(signer(same), OLD, t0 + 10)).isTrue();
        assertThat(verifies(signer(same), NEW, t0 + 10)).isTrue();
        assertThat(verifies(signer(same), OLD, t0 + HOUR)).isFalse();
        assertThat(verifies(signer(same), NEW, t0 + HOUR)).isTrue();

        // the file now lists the new secret alone: it signs once, not twice, and the old one (whose
        // secret only the file held) no longer signs at all
        SluiceConfig moved = hmac(NEW);
        rotations(moved, openControl());
        assertThat(entries(signer(moved), t0 + 10)).isEqualTo(1);
        assertThat(entries(signer(moved), t0 + HOUR)).isEqualTo(1);
        assertThat(verifies(signer(moved), NEW, t0 + HOUR)).isTrue();

        // a secret the control state has never seen signs as configured, beside the rotation
        SluiceConfig added = hmac(OLD, THIRD);
        rotations(added, openControl());
        assertThat(entries(signer(added), t0 + HOUR)).isEqualTo(2);
        assertThat(verifies(signer(added), THIRD, t0 + HOUR)).isTrue();
        assertThat(verifies(signer(added), NEW, t0 + HOUR)).isTrue();
        assertThat(verifies(signer(added), OLD, t0 + HOUR)).isFalse();
    }

    @Test
    void anEd25519RotationEndsOnlyTheEd25519KeyAndAZeroOverlapEndsItAtOnce() {
        SigningKey.Ed25519 first = SigningKey.Ed25519.generate();
        SigningKey.Ed25519 second = SigningKey.Ed25519.generate();
        SluiceConfig c = config("{scheme: standard_webhooks, secret: \"" + OLD + "\", ed25519_key: \"" + first.secret() + "\"}");
        SecretRotations rotations = rotations(c, openControl());
        WebhookSigner signer = signer(c);
        long t0 = T0 / 1000;
        assertThat(signer.signature("m", t0, BODY)).isEqualTo(WebhookSigner.of(List.of(SigningKey.parse("a", OLD), first))
                .signature("m", t0, BODY));

        assertThat(rotations.rotate("app", second.secret(), 0, T0)).isInstanceOf(SecretRotations.Done.class);
        assertThat(signer.signature("m", t0, BODY)).isEqualTo(WebhookSigner.of(List.of(SigningKey.parse("a", OLD), second))
                .signature("m", t0, BODY));
        assertThat(verifies(signer, OLD, t0)).as("the HMAC secret was not rotated").isTrue();
        assertThat(rotations.keys("app").orElseThrow().stream()
                .filter(k -> k.key().fingerprint().equals(second.fingerprint())).findFirst().orElseThrow().untilMillis())
                .isEqualTo(WebhookSigner.NO_END);
    }

    @Test
    void refusalsChangeNothingAndNameNoSecret() {
        SluiceConfig c = hmac(OLD);
        RocksControlState control = openControl();
        SecretRotations rotations = rotations(c, control);

        SecretRotations.Outcome bad = rotations.rotate("app", "hunter2-is-not-a-key", HOUR, T0);
        assertThat(bad).isInstanceOf(SecretRotations.Refused.class);
        assertThat(((SecretRotations.Refused) bad).code()).isEqualTo("invalid_secret");
        assertThat(((SecretRotations.Refused) bad).message()).doesNotContain("hunter2");

        SecretRotations.Outcome again = rotations.rotate("app", OLD, HOUR, T0);
        assertThat(((SecretRotations.Refused) again).code()).isEqualTo("secret_in_use");
        assertThat(control.signingSecrets()).isEmpty();
        assertThat(entries(signer(c), T0 / 1000 + HOUR)).isEqualTo(1);

        // eight keys may sign at once: a ninth waits for one to end
        for (int i = 0; i < 7; i++) {
            String key = "whsec_" + Base64.getEncoder().encodeToString(("key-number-" + i).getBytes(StandardCharsets.UTF_8));
            assertThat(rotations.rotate("app", key, HOUR, T0 + i)).as("key " + i).isInstanceOf(SecretRotations.Done.class);
        }
        SecretRotations.Outcome ninth = rotations.rotate("app", THIRD, HOUR, T0 + 10);
        assertThat(((SecretRotations.Refused) ninth).code()).isEqualTo("too_many_secrets");
        assertThat(rotations.rotate("app", THIRD, HOUR, T0 + HOUR * 1000)).as("once the first ended")
                .isInstanceOf(SecretRotations.Done.class);
        assertThat(new String(control.signingSecrets().get("app"), StandardCharsets.UTF_8)).doesNotContain(OLD)
                .as("an ended key's secret is not kept").contains(THIRD);
        assertThat(rotations.signs("plain")).isFalse();
    }

    @Test
    void aStoredValueThatCannotBeReadLeavesTheConfiguredKeys() {
        RocksControlState control = openControl();
        control.putSigningSecrets("app", "{\"keys\": 7}".getBytes(StandardCharsets.UTF_8));
        SluiceConfig c = hmac(OLD);
        rotations(c, control);
        assertThat(entries(signer(c), T0 / 1000)).isEqualTo(1);
        assertThat(verifies(signer(c), OLD, T0 / 1000)).isTrue();
    }
}
