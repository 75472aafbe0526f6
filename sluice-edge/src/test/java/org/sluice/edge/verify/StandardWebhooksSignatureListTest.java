package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;
import static org.sluice.edge.verify.VerifyOutcome.TIMESTAMP_OUT_OF_TOLERANCE;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code webhook-signature} list, entry by entry, against what the Standard Webhooks
 * specification and its reference libraries do: the list is space-delimited; an entry is
 * {@code <version>,<signature>}; entries of a version other than {@code v1} are skipped; a
 * {@code v1} entry that does not decode to a 32-byte MAC simply does not match; the header
 * passes when any {@code v1} entry matches. Where this edge is stricter, the test says so:
 * a header with no well-formed entry at all is malformed rather than a plain mismatch, and
 * at most {@value StandardWebhooksVerifier#MAX_ENTRIES} entries are examined.
 */
class StandardWebhooksSignatureListTest {

    static final long NOW = 1_764_676_800L;
    static final byte[] BODY = "{\"type\":\"contact.created\"}".getBytes(StandardCharsets.UTF_8);
    static final String SECRET = "whsec_" + b64("current-key-0123456789ab");
    static final String OTHER = "whsec_" + b64("another-key-0123456789ab");
    static final String ID = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";

    static final String GOOD = Signatures.standardWebhooks(SECRET, ID, NOW, BODY);
    /** Well formed (v1, 32 bytes) but made with a secret this source does not hold. */
    static final String FOREIGN = Signatures.standardWebhooks(OTHER, ID, NOW, BODY);
    static final String SHORT = "v1," + b64("sixteen-byte-mac"); // 16 bytes: wrong length for SHA-256

    static final Verifier VERIFIER = Verifiers.create(
            new VerifySpec("standard_webhooks", List.of(SECRET), 300, null, null, null, null), "sources.sw.verify");

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    static VerifyOutcome verify(String signatureHeader) {
        return verify(signatureHeader, NOW);
    }

    static VerifyOutcome verify(String signatureHeader, long now) {
        TestHeaders h = TestHeaders.of("webhook-id", ID, "webhook-timestamp", Long.toString(NOW),
                "webhook-signature", signatureHeader);
        return VERIFIER.verify(h, BODY, now);
    }

    // ---------------------------------------------------------------- one bad entry beside a good one

    @Test
    void aWrongLengthV1EntryBesideAMatchingOneIsAccepted() {
        assertThat(verify(SHORT + " " + GOOD)).isEqualTo(OK);
        assertThat(verify(GOOD + " " + SHORT)).isEqualTo(OK);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "v1,not*base64!",          // not base64 at all
            "v1,====",                 // padding only
            "v1,",                     // empty signature
            "v1,QUJD=QUJD",            // padding in the middle
            "noversion",               // no comma: skipped by the reference libraries
            ",c2lnbmF0dXJl",           // empty version
            "v1;c2lnbmF0dXJl",         // wrong separator
    })
    void aBrokenEntryBesideAMatchingOneIsSkipped(String broken) {
        assertThat(verify(broken + " " + GOOD)).isEqualTo(OK);
        assertThat(verify(GOOD + " " + broken)).isEqualTo(OK);
    }

    @Test
    void brokenEntriesBesideAWellFormedMismatchAreANoMatch() {
        assertThat(verify(SHORT + " " + FOREIGN)).isEqualTo(NO_MATCH);
        assertThat(verify("v1,not*base64! noversion " + FOREIGN)).isEqualTo(NO_MATCH);
    }

    @Test
    void aMatchingEntryAmongSeveralWrongOnesIsFound() {
        assertThat(verify(FOREIGN + " " + FOREIGN + " " + GOOD)).isEqualTo(OK);
    }

    // ---------------------------------------------------------------- versions

    @Test
    void otherVersionsAreSkipped() {
        String v1a = "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==";
        assertThat(verify(v1a + " " + GOOD)).isEqualTo(OK);
        assertThat(verify(v1a)).as("only a version this edge does not check").isEqualTo(NO_MATCH);
        assertThat(verify("v2," + GOOD.substring(3))).as("the right MAC under another version").isEqualTo(NO_MATCH);
    }

    @Test
    void theVersionTagIsCaseSensitive() {
        assertThat(verify("V1," + GOOD.substring(3))).isEqualTo(NO_MATCH);
    }

    // ---------------------------------------------------------------- separators

    @Test
    void emptyEntriesAndRunsOfSpacesAreIgnored() {
        assertThat(verify("  " + GOOD)).isEqualTo(OK);
        assertThat(verify(GOOD + "   ")).isEqualTo(OK);
        assertThat(verify(FOREIGN + "    " + GOOD)).isEqualTo(OK);
        assertThat(verify(FOREIGN + "\t" + GOOD)).as("a tab separates too").isEqualTo(OK);
    }

    @Test
    void headerLinesJoinedWithCommaSpaceStillParse() {
        assertThat(verify(FOREIGN + ", " + GOOD)).isEqualTo(OK);
        assertThat(verify(GOOD + ", " + FOREIGN)).isEqualTo(OK);
    }

    @Test
    void textFromASecondCommaOnIsIgnoredAsTheReferenceLibrariesDo() {
        assertThat(verify(GOOD + ",trailing")).isEqualTo(OK);
        assertThat(verify(SHORT + ",x " + FOREIGN + ",y")).isEqualTo(NO_MATCH);
    }

    @Test
    void unpaddedBase64IsAccepted() {
        assertThat(verify(GOOD.replace("=", ""))).isEqualTo(OK);
    }

    // ---------------------------------------------------------------- nothing well formed

    @ParameterizedTest
    @ValueSource(strings = {
            "v1,c2l4dGVlbi1ieXRlLW1hYw==",                           // one entry, wrong length
            "v1,c2l4dGVlbi1ieXRlLW1hYw== v1,not*base64!",            // several, none decodes to 32 bytes
            "v1,",
            "v1",
            "garbage",
            ",",
            ", ,",
            "v1,,",
    })
    void aHeaderWithNoWellFormedEntryIsMalformed(String header) {
        assertThat(verify(header)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void malformedIsReportedBeforeTheClockIsConsulted() {
        assertThat(verify(SHORT, NOW + 10_000)).isEqualTo(MALFORMED_SIGNATURE);
        assertThat(verify(SHORT + " " + GOOD, NOW + 10_000)).isEqualTo(TIMESTAMP_OUT_OF_TOLERANCE);
    }

    // ---------------------------------------------------------------- bounds

    @Test
    void upToTheCapEveryEntryIsExamined() {
        List<String> entries = new ArrayList<>();
        for (int i = 1; i < StandardWebhooksVerifier.MAX_ENTRIES; i++) {
            entries.add(i % 2 == 0 ? FOREIGN : "v1a,x" + i);
        }
        entries.add(GOOD);
        assertThat(verify(String.join(" ", entries))).isEqualTo(OK);
    }

    @Test
    void aHeaderWithMoreEntriesThanTheCapIsMalformedWhateverItHolds() {
        List<String> entries = new ArrayList<>();
        entries.add(GOOD);
        for (int i = 0; i < StandardWebhooksVerifier.MAX_ENTRIES; i++) {
            entries.add(FOREIGN);
        }
        assertThat(verify(String.join(" ", entries))).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void aHugeListIsRefusedAfterTheCap() {
        // what a 16 KiB header line can carry: about 340 entries
        assertThat(verify((FOREIGN + " ").repeat(340) + GOOD)).isEqualTo(MALFORMED_SIGNATURE);
        assertThat(verify("x ".repeat(100_000))).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void aHugeSingleEntryIsNotASignature() {
        assertThat(verify("v1," + "A".repeat(200_000))).isEqualTo(MALFORMED_SIGNATURE);
        assertThat(verify("v1," + "A".repeat(200_000) + " " + GOOD)).isEqualTo(OK);
    }

    @Test
    void spacesDoNotCountAsEntries() {
        assertThat(verify(" ".repeat(100_000) + GOOD + " ".repeat(100_000))).isEqualTo(OK);
    }

    // ---------------------------------------------------------------- hostile input

    @Provide
    Arbitrary<String> hostileLists() {
        Arbitrary<String> entry = Arbitraries.oneOf(
                Arbitraries.of(GOOD.substring(0, 10), SHORT, FOREIGN, "v1,", ",", "v1", "v1a,abc", "==", "v1,===="),
                Arbitraries.strings().withChars("v1a,=+/ \tAZaz09!").ofMaxLength(60),
                Arbitraries.strings().all().ofMaxLength(20));
        return entry.list().ofMaxSize(50).map(l -> String.join(" ", l));
    }

    @Property(tries = 500)
    void noHeaderWithoutTheGoodSignatureIsAcceptedAndNoneThrows(@ForAll("hostileLists") String header) {
        VerifyOutcome outcome = verify(header);
        assertThat(outcome).isNotEqualTo(OK);
        if (!header.isBlank()) {
            assertThat(outcome).isIn(MALFORMED_SIGNATURE, NO_MATCH);
        }
    }

    @Property(tries = 300)
    void theGoodSignatureAnywhereInAShortHostileListIsAccepted(@ForAll("hostileLists") String header,
                                                               @ForAll("positions") int position) {
        String[] parts = header.isEmpty() ? new String[0] : header.split(" ", -1);
        long nonEmpty = java.util.Arrays.stream(header.split("[ \t]+")).filter(e -> !e.isEmpty()).count();
        if (nonEmpty + 1 > StandardWebhooksVerifier.MAX_ENTRIES) {
            return; // the cap is covered above
        }
        List<String> entries = new ArrayList<>(List.of(parts));
        entries.add(Math.floorMod(position, entries.size() + 1), GOOD);
        assertThat(verify(String.join(" ", entries))).isEqualTo(OK);
    }

    @Provide
    Arbitrary<Integer> positions() {
        return Arbitraries.integers();
    }
}
