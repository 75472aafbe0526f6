package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;

/**
 * The shared vectors (gcra-vectors.csv) through the Java arithmetic and through
 * admit.lua on a real Redis, with the script's "now" argument standing in for Redis
 * TIME; then a few thousand random cases where the two must agree with each other.
 */
class GcraVectorsTest {

    private static RedisServer redis;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> conn;
    private static RedisCommands<String, String> cmd;

    record Vector(String name, long now, long hookTat, long byteTat, long hookInc, long hookTol,
                  long byteInc, long byteTol, int scope, long waitUs, long hookAfter, long byteAfter) {
    }

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        conn = client.connect(StringCodec.UTF8);
        cmd = conn.sync();
    }

    @AfterAll
    static void stopRedis() {
        conn.close();
        client.shutdown();
        redis.close();
    }

    static List<Vector> vectors() throws IOException {
        List<Vector> out = new ArrayList<>();
        try (InputStream in = GcraVectorsTest.class.getResourceAsStream("gcra-vectors.csv");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            boolean header = true;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                if (header) {
                    header = false;
                    continue;
                }
                String[] f = line.split(",");
                out.add(new Vector(f[0], num(f[1]), num(f[2]), num(f[3]), num(f[4]), num(f[5]), num(f[6]),
                        num(f[7]), (int) num(f[8]), num(f[9]), num(f[10]), num(f[11])));
            }
        }
        return out;
    }

    private static long num(String s) {
        return s.equals("-") ? FleetGcra.ABSENT : Long.parseLong(s);
    }

    @Test
    void thereAreVectorsForEveryOutcome() throws IOException {
        List<Vector> vs = vectors();
        assertThat(vs).hasSizeGreaterThanOrEqualTo(20);
        assertThat(vs).extracting(Vector::scope).contains(0, 1, 2);
    }

    @Test
    void javaPassesTheVectors() throws IOException {
        for (Vector v : vectors()) {
            FleetGcra.Decision d = FleetGcra.decide(v.hookTat(), v.byteTat(), v.now(),
                    v.hookInc(), v.hookTol(), v.byteInc(), v.byteTol());
            assertThat(d).as(v.name())
                    .isEqualTo(new FleetGcra.Decision(v.scope(), v.waitUs(), v.hookAfter(), v.byteAfter()));
        }
    }

    @Test
    void luaPassesTheVectors() throws IOException {
        int i = 0;
        for (Vector v : vectors()) {
            String tenant = "vec" + (i++);
            FleetGcra.Decision d = runLua(tenant, v.hookTat(), v.byteTat(), v.now(),
                    v.hookInc(), v.hookTol(), v.byteInc(), v.byteTol());
            assertThat(d).as(v.name())
                    .isEqualTo(new FleetGcra.Decision(v.scope(), v.waitUs(), v.hookAfter(), v.byteAfter()));
        }
    }

    @Test
    void javaAndLuaAgreeOnRandomCases() {
        Random random = new Random(20261202L);
        long base = 1_733_100_000_000_000L;
        for (int i = 0; i < 1_500; i++) {
            long now = base + random.nextInt(1_000_000_000);
            long hookTol = pick(random);
            long hookInc = random.nextInt(4) == 0 ? hookTol + 1 + random.nextInt(1000) : Math.min(hookTol, pick(random));
            long byteTol = random.nextInt(3) == 0 ? 0 : pick(random);
            long byteInc = random.nextInt(4) == 0 ? byteTol + random.nextInt(1000) : Math.min(byteTol, pick(random));
            long hookTat = random.nextInt(4) == 0 ? FleetGcra.ABSENT : now - 50_000_000 + (long) (random.nextDouble() * 2 * hookTol + 60_000_000);
            long byteTat = random.nextInt(4) == 0 ? FleetGcra.ABSENT : now - 50_000_000 + (long) (random.nextDouble() * 2 * Math.max(1, byteTol) + 60_000_000);
            hookInc = Math.min(hookInc, FleetGcra.MAX_MICROS);
            byteInc = Math.min(byteInc, FleetGcra.MAX_MICROS);
            FleetGcra.Decision java = FleetGcra.decide(hookTat, byteTat, now, hookInc, hookTol, byteInc, byteTol);
            FleetGcra.Decision lua = runLua("rnd" + i, hookTat, byteTat, now, hookInc, hookTol, byteInc, byteTol);
            assertThat(lua).as("case %d: tat %d/%d now %d hook %d/%d bytes %d/%d", i, hookTat, byteTat, now,
                    hookInc, hookTol, byteInc, byteTol).isEqualTo(java);
        }
    }

    @Test
    void luaPassesTheVectorsInBatches() throws IOException {
        // vectors sharing a "now" go in one call, each on its own tenant: independent
        // requests in a batch answer exactly as they do one by one
        Map<Long, List<Vector>> byNow = new TreeMap<>();
        for (Vector v : vectors()) {
            byNow.computeIfAbsent(v.now(), n -> new ArrayList<>()).add(v);
        }
        int t = 0;
        for (Map.Entry<Long, List<Vector>> group : byNow.entrySet()) {
            List<Step> steps = new ArrayList<>();
            Map<String, long[]> initial = new HashMap<>();
            for (Vector v : group.getValue()) {
                String tenant = "bvec" + (t++);
                initial.put(tenant, new long[] {v.hookTat(), v.byteTat()});
                steps.add(new Step(tenant, v.hookInc(), v.hookTol(), v.byteInc(), v.byteTol()));
            }
            assertThat(steps).hasSizeGreaterThan(1);
            BatchRun run = runLuaBatch(group.getKey(), initial, steps);
            for (int i = 0; i < steps.size(); i++) {
                Vector v = group.getValue().get(i);
                assertThat(run.decisions().get(i)).as(v.name())
                        .isEqualTo(new FleetGcra.Decision(v.scope(), v.waitUs(), v.hookAfter(), v.byteAfter()));
            }
        }
    }

    @Test
    void oneLuaBatchAnswersLikeJavaAppliedInOrder() {
        // requests for the same few tenants in one call: each sees the writes of those
        // before it, exactly as the Java arithmetic applied one after the other
        Random random = new Random(6L);
        long now = 1_733_100_000_000_000L;
        for (int round = 0; round < 40; round++) {
            int tenants = 1 + random.nextInt(3);
            Map<String, long[]> initial = new HashMap<>();
            Map<String, long[]> model = new HashMap<>();
            for (int i = 0; i < tenants; i++) {
                long hookTat = random.nextBoolean() ? FleetGcra.ABSENT : now + random.nextInt(2_000_000);
                long byteTat = random.nextBoolean() ? FleetGcra.ABSENT : now + random.nextInt(2_000_000);
                String tenant = "seq" + round + "-" + i;
                initial.put(tenant, new long[] {hookTat, byteTat});
                model.put(tenant, new long[] {hookTat, byteTat});
            }
            List<Step> steps = new ArrayList<>();
            List<FleetGcra.Decision> expected = new ArrayList<>();
            int n = 2 + random.nextInt(60);
            for (int i = 0; i < n; i++) {
                String tenant = "seq" + round + "-" + random.nextInt(tenants);
                long hookTol = 1 + random.nextInt(3_000_000);
                long hookInc = random.nextInt(5) == 0 ? hookTol + 1 : 1 + random.nextInt(600_000);
                long byteTol = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(3_000_000);
                long byteInc = random.nextInt(700_000);
                Step step = new Step(tenant, hookInc, hookTol, byteInc, byteTol);
                steps.add(step);
                long[] state = model.get(tenant);
                FleetGcra.Decision d = FleetGcra.decide(state[0], state[1], now, hookInc, hookTol, byteInc, byteTol);
                expected.add(d);
                state[0] = d.hookTatAfter();
                state[1] = d.byteTatAfter();
            }
            BatchRun run = runLuaBatch(now, initial, steps);
            for (int i = 0; i < n; i++) {
                // the buckets a step reports are read after the whole batch; compare
                // the refusal and wait per step, and the final buckets per tenant
                assertThat(run.decisions().get(i).scope()).as("round %d step %d", round, i)
                        .isEqualTo(expected.get(i).scope());
                assertThat(run.decisions().get(i).waitUs()).as("round %d step %d", round, i)
                        .isEqualTo(expected.get(i).waitUs());
            }
            for (Map.Entry<String, long[]> e : model.entrySet()) {
                int last = lastStepOf(steps, e.getKey());
                if (last >= 0) {
                    assertThat(run.decisions().get(last).hookTatAfter()).as("round %d %s hooks", round, e.getKey())
                            .isEqualTo(e.getValue()[0]);
                    assertThat(run.decisions().get(last).byteTatAfter()).as("round %d %s bytes", round, e.getKey())
                            .isEqualTo(e.getValue()[1]);
                }
            }
        }
    }

    private static int lastStepOf(List<Step> steps, String tenant) {
        for (int i = steps.size() - 1; i >= 0; i--) {
            if (steps.get(i).tenant().equals(tenant)) {
                return i;
            }
        }
        return -1;
    }

    record Step(String tenant, long hookInc, long hookTol, long byteInc, long byteTol) {
    }

    /** Per step: its answer, and its tenant's buckets as they stand after the whole batch. */
    record BatchRun(List<FleetGcra.Decision> decisions) {
    }

    /** Stores the initial buckets, runs every step in ONE admit.lua call at {@code now}, reads back. */
    @SuppressWarnings("unchecked")
    static BatchRun runLuaBatch(long now, Map<String, long[]> initial, List<Step> steps) {
        for (Map.Entry<String, long[]> e : initial.entrySet()) {
            String h = "sluice:{" + e.getKey() + "}:h";
            String b = "sluice:{" + e.getKey() + "}:b";
            cmd.del(h, b);
            if (e.getValue()[0] != FleetGcra.ABSENT) {
                cmd.set(h, Long.toString(e.getValue()[0]));
            }
            if (e.getValue()[1] != FleetGcra.ABSENT) {
                cmd.set(b, Long.toString(e.getValue()[1]));
            }
        }
        String[] keys = new String[steps.size() * 2];
        List<String> args = new ArrayList<>(List.of(Integer.toString(steps.size()), "30000", Long.toString(now)));
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            keys[2 * i] = "sluice:{" + s.tenant() + "}:h";
            keys[2 * i + 1] = "sluice:{" + s.tenant() + "}:b";
            args.addAll(List.of(Long.toString(s.hookInc()), Long.toString(s.hookTol()),
                    Long.toString(s.byteInc()), Long.toString(s.byteTol()), "1", ""));
        }
        List<Object> out = cmd.eval(OBSERVED_BATCH, ScriptOutputType.MULTI, keys, args.toArray(new String[0]));
        List<Object> replies = (List<Object>) out.get(0);
        List<Object> after = (List<Object>) out.get(1);
        assertThat(replies).hasSize(steps.size());
        List<FleetGcra.Decision> decisions = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            List<Object> reply = (List<Object>) replies.get(i);
            long code = (Long) reply.get(0);
            int scope = code == 4 ? ((Long) reply.get(1)).intValue() : 0;
            long wait = code == 4 ? (Long) reply.get(2) : 0;
            decisions.add(new FleetGcra.Decision(scope, wait, num((String) after.get(2 * i)), num((String) after.get(2 * i + 1))));
        }
        return new BatchRun(decisions);
    }

    private static long pick(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return 1 + random.nextInt(1000);
            case 1:
                return 1 + random.nextInt(100_000_000);
            case 2:
                return FleetGcra.MAX_MICROS - random.nextInt(1000);
            default:
                return 1 + (long) (random.nextDouble() * 1e12);
        }
    }

    /**
     * admit.lua's exact text wrapped in a function, followed by reads of both buckets in
     * the same script: inside one script Redis judges expiry at the script's start, so the
     * reads see what the script wrote even when it expires a millisecond later.
     */
    private static final String OBSERVED = "local function sluice_admit()\n" + Script.ADMIT.body()
            + "\nend\nlocal r = sluice_admit()\n"
            + "return {r, redis.call('GET', KEYS[1]) or '-', redis.call('GET', KEYS[2]) or '-'}\n";

    /** The same for a batch: the replies, then every key's value after the whole batch. */
    private static final String OBSERVED_BATCH = "local function sluice_admit()\n" + Script.ADMIT.body()
            + "\nend\nlocal r = sluice_admit()\nlocal after = {}\n"
            + "for i = 1, #KEYS do after[i] = redis.call('GET', KEYS[i]) or '-' end\n"
            + "return {r, after}\n";

    /** Stores the buckets, runs admit.lua with "now" given, reads the buckets back. */
    @SuppressWarnings("unchecked")
    static FleetGcra.Decision runLua(String tenant, long hookTat, long byteTat, long now,
                                     long hookInc, long hookTol, long byteInc, long byteTol) {
        String h = "sluice:{" + tenant + "}:h";
        String b = "sluice:{" + tenant + "}:b";
        cmd.del(h, b);
        if (hookTat != FleetGcra.ABSENT) {
            cmd.set(h, Long.toString(hookTat));
        }
        if (byteTat != FleetGcra.ABSENT) {
            cmd.set(b, Long.toString(byteTat));
        }
        List<Object> out = cmd.eval(OBSERVED, ScriptOutputType.MULTI, new String[] {h, b},
                "1", "30000", Long.toString(now),
                Long.toString(hookInc), Long.toString(hookTol), Long.toString(byteInc), Long.toString(byteTol),
                "1", "");
        List<Object> reply = (List<Object>) ((List<Object>) out.get(0)).get(0);
        long code = (Long) reply.get(0);
        int scope = code == 4 ? ((Long) reply.get(1)).intValue() : 0;
        long wait = code == 4 ? (Long) reply.get(2) : 0;
        return new FleetGcra.Decision(scope, wait, num((String) out.get(1)), num((String) out.get(2)));
    }
}
