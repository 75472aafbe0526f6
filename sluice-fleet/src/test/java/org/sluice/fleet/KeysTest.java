package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The key layout is injective: a key, read as the bytes Redis stores, gives back the one
 * (tenant, source, event key) it was made from, so two callers can never share a bucket
 * or a claim by accident.
 */
class KeysTest {

    /** The rule, written independently of {@link Keys#validId}. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    /** What a key says, read back from its bytes: kind 'h', 'b' or 'd'; source and key only for 'd'. */
    record Parsed(char kind, String tenant, String source, List<Byte> key) {
    }

    /** Reads a key back from the bytes Redis sees; fails the test on any other shape. */
    static Parsed parse(byte[] redisKey) {
        String prefix = "sluice:{";
        assertThat(new String(redisKey, 0, prefix.length(), StandardCharsets.US_ASCII)).isEqualTo(prefix);
        int close = indexOf(redisKey, (byte) '}', prefix.length());
        String tenant = new String(redisKey, prefix.length(), close - prefix.length(), StandardCharsets.US_ASCII);
        assertThat(redisKey[close + 1]).isEqualTo((byte) ':');
        char kind = (char) redisKey[close + 2];
        if (kind == 'h' || kind == 'b') {
            assertThat(redisKey.length).isEqualTo(close + 3);
            return new Parsed(kind, tenant, null, null);
        }
        assertThat(kind).isEqualTo('d');
        assertThat(redisKey[close + 3]).isEqualTo((byte) ':');
        int sourceStart = close + 4;
        int colon = indexOf(redisKey, (byte) ':', sourceStart);
        String source = new String(redisKey, sourceStart, colon - sourceStart, StandardCharsets.US_ASCII);
        return new Parsed('d', tenant, source, bytes(Arrays.copyOfRange(redisKey, colon + 1, redisKey.length)));
    }

    private static int indexOf(byte[] b, byte what, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == what) {
                return i;
            }
        }
        throw new AssertionError("no '" + (char) what + "' after " + from + " in " + new String(b, StandardCharsets.UTF_8));
    }

    private static List<Byte> bytes(byte[] b) {
        Byte[] boxed = new Byte[b.length];
        for (int i = 0; i < b.length; i++) {
            boxed[i] = b[i];
        }
        return List.of(boxed);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8); // what the client's UTF-8 codec writes, unpaired surrogates as '?'
    }

    @Provide
    Arbitrary<String> ids() {
        return Arbitraries.strings().withChars("ABCXYZabcxyz0189._-").ofMinLength(1).ofMaxLength(Keys.ID_MAX);
    }

    /** Any string at all: every char, unpaired surrogates and separators included. */
    @Provide
    Arbitrary<String> anyKey() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(40),
                Arbitraries.strings().withChars(":{}ad").ofMaxLength(12),
                Arbitraries.strings().all().ofMaxLength(300));
    }

    @Property(tries = 2_000)
    void everyKeyReadsBackToTheOneTupleItWasMadeFrom(@ForAll("ids") String tenant, @ForAll("ids") String source,
                                                      @ForAll("anyKey") String key) {
        assertThat(parse(utf8(Keys.hooks(tenant)))).isEqualTo(new Parsed('h', tenant, null, null));
        assertThat(parse(utf8(Keys.bytes(tenant)))).isEqualTo(new Parsed('b', tenant, null, null));
        assertThat(parse(utf8(Keys.dedupe(tenant, source, key))))
                .isEqualTo(new Parsed('d', tenant, source, bytes(utf8(key))));
    }

    /** Short strings over separators and a few letters, where the old layout collided often. */
    @Provide
    Arbitrary<List<String[]>> crowds() {
        Arbitrary<String> part = Arbitraries.strings().withChars("ab.:{}d").ofMaxLength(4);
        return Combinators.combine(part, part, part).as((t, s, k) -> new String[] {t, s, k}).list().ofMaxSize(60);
    }

    @Property(tries = 1_000)
    void noTwoTuplesShareAKeyAndEveryTupleOutsideTheRuleIsRefused(@ForAll("crowds") List<String[]> tuples) {
        Map<String, String> owner = new HashMap<>(); // key -> the (kind, tuple) that made it
        for (String[] x : tuples) {
            String tenant = x[0];
            String source = x[1];
            String key = x[2];
            if (!ID.matcher(tenant).matches()) {
                assertThatThrownBy(() -> Keys.hooks(tenant)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("tenant must be");
                assertThatThrownBy(() -> Keys.dedupe(tenant, "s", key)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("tenant must be");
                continue;
            }
            claim(owner, Keys.hooks(tenant), "h " + tenant);
            claim(owner, Keys.bytes(tenant), "b " + tenant);
            if (!ID.matcher(source).matches()) {
                assertThatThrownBy(() -> Keys.dedupe(tenant, source, key)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("source must be");
                continue;
            }
            claim(owner, Keys.dedupe(tenant, source, key), "d " + tenant + " " + source + " " + key);
        }
    }

    private static void claim(Map<String, String> owner, String redisKey, String who) {
        String before = owner.putIfAbsent(redisKey, who);
        assertThat(before == null || before.equals(who)).as(redisKey + " made by both " + before + " and " + who).isTrue();
    }

    @Property(tries = 2_000)
    void anIdIsAcceptedExactlyWhenItFollowsTheRule(@ForAll("anyKey") String id) {
        if (ID.matcher(id).matches()) {
            assertThat(Keys.checkId("tenant", id)).isSameAs(id);
        } else {
            assertThatThrownBy(() -> Keys.checkId("tenant", id)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("tenant must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got \"");
        }
    }

    @Example
    void theCollisionsOfTheUncheckedLayoutAreRefusedNamingTheFieldAndTheValue() {
        // source "a:b" with key "c" and source "a" with key "b:c" were one claim
        assertThat(Keys.dedupe("t", "a", "b:c")).isEqualTo("sluice:{t}:d:a:b:c");
        assertThatThrownBy(() -> Keys.dedupe("t", "a:b", "c")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("source must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got \"a:b\"");
        // tenant "a:b" against tenant "a" and source "b"
        assertThatThrownBy(() -> Keys.hooks("a:b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenant must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got \"a:b\"");
        // tenant "a}:d:b"'s hook bucket was tenant a's claim of source "b}" and key "h"
        assertThatThrownBy(() -> Keys.hooks("a}:d:b")).hasMessageContaining("got \"a}:d:b\"");
        assertThatThrownBy(() -> Keys.dedupe("a", "b}", "h")).hasMessageContaining("source must be");
        assertThatThrownBy(() -> Keys.hooks("")).hasMessageEndingWith("got \"\"");
        assertThatThrownBy(() -> Keys.hooks(null)).hasMessageEndingWith("got null");
        assertThatThrownBy(() -> Keys.hooks("x".repeat(129))).hasMessageContaining("got \"xxx");
        assertThatThrownBy(() -> Keys.hooks("a\nb")).hasMessageEndingWith("got \"a\\u000ab\"");
    }

    @Example
    void theIdsTheEdgeAcceptsKeepTheKeysTheyHadBefore() {
        assertThat(Keys.hooks("acme")).isEqualTo("sluice:{acme}:h");
        assertThat(Keys.bytes("acme.io")).isEqualTo("sluice:{acme.io}:b");
        assertThat(Keys.dedupe("default", "stripe-live_1", "evt_1:x{y}")).isEqualTo("sluice:{default}:d:stripe-live_1:evt_1:x{y}");
        assertThat(Keys.hooks("T".repeat(128))).isEqualTo("sluice:{" + "T".repeat(128) + "}:h");
    }
}
