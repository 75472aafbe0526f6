package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.http.HttpReader;
import org.sluice.edge.delivery.kafka.KafkaReader;
import org.sluice.edge.delivery.nats.NatsReader;

/** Keeps docs/configuration.md honest: its YAML examples load, and it documents every key the loader knows. */
class ConfigDocsTest {

    private static final Map<String, String> ENV = Map.of(
            "STRIPE_WHSEC", "whsec_example", "GH_SECRET", "gh-example", "GH_SECRET_OLD", "gh-old-example");

    private static String doc() throws Exception {
        Path p = Path.of("../docs/configuration.md");
        if (!Files.exists(p)) {
            p = Path.of("docs/configuration.md");
        }
        return Files.readString(p);
    }

    @Test
    void everyYamlExampleInTheDocsLoads() throws Exception {
        Matcher m = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(doc());
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertThat(blocks).hasSizeGreaterThanOrEqualTo(3);
        for (String yaml : blocks) {
            assertThatCode(() -> ConfigLoader.parse(yaml, ENV, "docs example")).as(yaml).doesNotThrowAnyException();
        }
    }

    @Test
    void theCompleteExampleIsTheTestedFixture() throws Exception {
        Matcher m = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(doc());
        assertThat(m.find()).isTrue();
        SluiceConfig fromDocs = ConfigLoader.parse(m.group(1), ENV, "docs");
        SluiceConfig fixture = ConfigLoader.load(ConfigLoaderTest.resource("full-example.yaml"), ENV);
        assertThat(fromDocs).isEqualTo(fixture);
    }

    @Test
    void everyKeyTheLoaderKnowsIsDocumented() throws Exception {
        String doc = doc();
        List<String> missing = new ArrayList<>();
        check(doc, "node", ConfigBinder.NODE, missing);
        check(doc, "admin", ConfigBinder.ADMIN, missing);
        check(doc, "http", ConfigBinder.HTTP.stream().filter(k -> !k.equals("tls")).toList(), missing);
        check(doc, "http.tls", ConfigBinder.TLS, missing);
        check(doc, "rate_limits", ConfigBinder.RATE_LIMITS.stream().filter(k -> !k.equals("sources")).toList(), missing);
        check(doc, "intake", ConfigBinder.INTAKE, missing);
        check(doc, "dedupe", ConfigBinder.DEDUPE, missing);
        check(doc, "fleet", ConfigBinder.FLEET, missing);
        check(doc, "sources.<id>", SourceReader.SOURCE_KEYS, missing);
        check(doc, "destinations.<name>", HttpReader.KEYS, missing);
        check(doc, "destinations.<name>", NatsReader.OWN_KEYS, missing);
        check(doc, "destinations.<name>", KafkaReader.KEYS, missing);
        check(doc, "destinations.<name>.retry", DestinationReader.RETRY, missing);
        check(doc, "destinations.<name>.breaker", DestinationReader.BREAKER, missing);
        check(doc, "destinations.<name>.rate", org.sluice.edge.delivery.AdaptiveRate.KEYS, missing);
        check(doc, "destinations.<name>.signing", HttpReader.SIGNING, missing);
        check(doc, "retention", ConfigBinder.RETENTION, missing);
        check(doc, "store", ConfigBinder.STORE.stream().filter(k -> !k.equals("kafka")).toList(), missing);
        check(doc, "store.kafka", StoreReader.KAFKA, missing);
        check(doc, "telemetry", ConfigBinder.TELEMETRY.stream().filter(k -> !k.equals("otlp")).toList(), missing);
        check(doc, "telemetry.otlp", ConfigBinder.TELEMETRY_OTLP, missing);
        for (String k : SourceReader.VERIFY_KEYS) {
            if (!doc.contains("| `" + k + "` |")) {
                missing.add("verify." + k);
            }
        }
        if (!doc.contains("`rate_limits.sources.default.bytes_per_second`")) {
            missing.add("rate_limits.sources.default.bytes_per_second");
        }
        assertThat(missing).isEmpty();
    }

    private static void check(String doc, String section, List<String> keys, List<String> missing) {
        for (String k : keys) {
            String full = section + "." + k;
            if (!doc.contains("| `" + full + "`") && !doc.contains("| `" + full + ".<")) {
                missing.add(full);
            }
        }
    }
}
