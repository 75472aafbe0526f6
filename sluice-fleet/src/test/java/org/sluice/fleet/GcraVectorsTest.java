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
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.fleet.internal.Script;
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
                Long.toString(hookInc), Long.toString(hookTol), Long.toString(byteInc), Long.toString(byteTol),
                "1", "0", "", "30000", Long.toString(now));
        List<Object> reply = (List<Object>) out.get(0);
        long code = (Long) reply.get(0);
        int scope = code == 4 ? ((Long) reply.get(1)).intValue() : 0;
        long wait = code == 4 ? (Long) reply.get(2) : 0;
        return new FleetGcra.Decision(scope, wait, num((String) out.get(1)), num((String) out.get(2)));
    }
}
