package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One verifier shared by several threads gives every request the answer it would get alone.
 * A Mac shared between threads would mix their inputs and turn some genuine requests into
 * no_match (and could let a forged one through).
 */
class ConcurrentVerificationTest {

    @Test
    void sharedVerifierAnswersEachRequestCorrectly() throws Exception {
        long now = 1_764_676_800L;
        VerifySpec spec = new VerifySpec("stripe", List.of("whsec_a", "whsec_b", "whsec_c"), 300, null, null, null, null);
        Verifier verifier = Verifiers.create(spec, "p");
        int threads = 4;
        int perThread = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<int[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Callable<int[]> task = () -> {
                    int ok = 0;
                    int noMatch = 0;
                    for (int i = 0; i < perThread; i++) {
                        byte[] body = ("{\"thread\":" + thread + ",\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
                        String secret = spec.secrets().get(i % 3);
                        TestHeaders h = TestHeaders.of(Signatures.headers(spec, secret, body, now));
                        boolean forge = i % 2 == 1;
                        byte[] sent = forge ? ("{\"thread\":" + thread + ",\"i\":-" + i + "}").getBytes(StandardCharsets.UTF_8) : body;
                        VerifyOutcome outcome = verifier.verify(h, sent, now);
                        if (outcome == VerifyOutcome.OK) {
                            ok++;
                        } else if (outcome == VerifyOutcome.NO_MATCH) {
                            noMatch++;
                        }
                    }
                    return new int[] {ok, noMatch};
                };
                results.add(pool.submit(task));
            }
            for (Future<int[]> f : results) {
                int[] r = f.get(60, TimeUnit.SECONDS);
                assertThat(r[0]).isEqualTo(perThread / 2);
                assertThat(r[1]).isEqualTo(perThread / 2);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
