package org.sluice.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The console's static files: served from the jar with the security headers, nothing a strict CSP blocks. */
class ConsoleAssetsTest {

    @Test
    void everyFileIsServedWithTheSecurityHeaders() {
        for (String path : new String[] {"/console", "/console/", "/console/console.js", "/console/console.css",
            "/console/uplot/uPlot.iife.min.js", "/console/uplot/uPlot.min.css"}) {
            AdminResponse response = ConsoleAssets.answer("GET", path);
            assertThat(response.status()).as(path).isEqualTo(200);
            assertThat(response.body()).as(path).isNotEmpty();
            assertThat(response.headers()).as(path)
                    .containsEntry("Content-Security-Policy", "default-src 'self'; script-src 'self'; "
                            + "style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
                            + "base-uri 'none'; form-action 'none'")
                    .containsEntry("X-Frame-Options", "DENY")
                    .containsEntry("Referrer-Policy", "no-referrer")
                    .containsEntry("X-Content-Type-Options", "nosniff");
        }
        assertThat(ConsoleAssets.answer("GET", "/console").headers()).containsEntry("Content-Type", "text/html; charset=utf-8");
        assertThat(ConsoleAssets.answer("GET", "/console/console.js").headers())
                .containsEntry("Content-Type", "text/javascript; charset=utf-8");
    }

    @Test
    void unknownFilesAre404AndOtherMethods405() {
        AdminResponse missing = ConsoleAssets.answer("GET", "/console/../admin.token");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.headers()).containsEntry("X-Frame-Options", "DENY");
        assertThat(ConsoleAssets.answer("GET", "/console/nope.js").status()).isEqualTo(404);
        AdminResponse post = ConsoleAssets.answer("POST", "/console/");
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.headers()).containsEntry("Allow", "GET");
    }

    @Test
    void thePageHasNoInlineScriptStyleOrHandlerAndFetchesNothingElsewhere() {
        String html = ConsoleAssets.answer("GET", "/console/").bodyText();
        assertThat(Pattern.compile("<script(?![^>]*\\ssrc=)[^>]*>", Pattern.CASE_INSENSITIVE).matcher(html).find())
                .as("inline <script>").isFalse();
        assertThat(html).doesNotContainIgnoringCase("<style").doesNotContainIgnoringCase(" style=")
                .doesNotContainIgnoringCase("javascript:").doesNotContain("http://").doesNotContain("https://")
                .doesNotContain("//cdn");
        assertThat(Pattern.compile("\\son[a-z]+=", Pattern.CASE_INSENSITIVE).matcher(html).find())
                .as("inline event handler").isFalse();
        String js = ConsoleAssets.answer("GET", "/console/console.js").bodyText();
        assertThat(js).doesNotContain("innerHTML").doesNotContain("http://").doesNotContain("https://")
                .doesNotContain("eval(");
    }

    @Test
    void ownsOnlyTheConsolePaths() {
        assertThat(ConsoleAssets.owns("/console")).isTrue();
        assertThat(ConsoleAssets.owns("/console/x")).isTrue();
        assertThat(ConsoleAssets.owns("/consoles")).isFalse();
        assertThat(ConsoleAssets.owns("/v1/console")).isFalse();
    }
}
