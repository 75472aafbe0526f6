package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Test vectors published in the providers' own documentation. */
class KnownAnswerTest {

    @Test
    void githubDocumentedExample() {
        byte[] body = "Hello, World!".getBytes(StandardCharsets.UTF_8);
        String expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assertThat(Signatures.github("It's a Secret to Everybody", body)).isEqualTo(expected);
        Verifier v = Verifiers.create(new VerifySpec("github", List.of("It's a Secret to Everybody"), 300, null, null, null, null), "p");
        assertThat(v.verify(TestHeaders.of("X-Hub-Signature-256", expected), body, 0)).isEqualTo(VerifyOutcome.OK);
    }

    @Test
    void slackDocumentedExample() {
        String secret = "8f742231b10e8888abcd99yyyzzz85a5";
        long ts = 1531420618L;
        byte[] body = ("token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
                + "&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
                + "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
                + "&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c").getBytes(StandardCharsets.UTF_8);
        String expected = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
        assertThat(Signatures.slack(secret, body, ts)).isEqualTo(expected);
        Verifier v = Verifiers.create(new VerifySpec("slack", List.of(secret), 300, null, null, null, null), "p");
        TestHeaders h = TestHeaders.of("X-Slack-Signature", expected, "X-Slack-Request-Timestamp", Long.toString(ts));
        assertThat(v.verify(h, body, ts + 60)).isEqualTo(VerifyOutcome.OK);
    }

    @Test
    void standardWebhooksDocumentedExample() {
        String secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        String id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
        long ts = 1614265330L;
        byte[] body = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
        String expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
        assertThat(Signatures.standardWebhooks(secret, id, ts, body)).isEqualTo(expected);
        Verifier v = Verifiers.create(new VerifySpec("standard_webhooks", List.of(secret), 300, null, null, null, null), "p");
        TestHeaders h = TestHeaders.of("webhook-id", id, "webhook-timestamp", Long.toString(ts), "webhook-signature", expected);
        assertThat(v.verify(h, body, ts)).isEqualTo(VerifyOutcome.OK);
    }
}
