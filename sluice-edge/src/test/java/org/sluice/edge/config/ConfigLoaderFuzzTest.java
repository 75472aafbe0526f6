package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.sluice.edge.dedupe.DedupeKeys;
import org.sluice.edge.verify.Verifiers;

/**
 * Fuzz target for the config loader and binder. Three shapes of input: raw YAML text;
 * the default configuration with one fuzzed line put in; and a document built from the
 * config's own key names with fuzzed values of every YAML type (so the binder meets
 * lists where it wants maps, numbers where it wants strings, nulls, huge and negative
 * numbers, {@code ${VAR}} references). The contract: a {@link SluiceConfig}, or a {@link
 * ConfigException} whose every message is non-blank. Any other exception (a
 * NullPointerException, a ClassCastException, ...) is a finding. A config that loads must
 * also build every source's verifier and dedupe extractor, as the server does at boot.
 */
@Tag("fuzz")
class ConfigLoaderFuzzTest {

    private static final YAMLMapper YAML = new YAMLMapper();

    private static final String[] KEYS = {
        "node", "admin", "http", "rate_limits", "intake", "dedupe", "sources", "fleet",
        "id", "data_dir", "listen", "token", "metrics_require_token", "allowed_hosts", "prefix", "routing", "max_body_bytes",
        "trusted_proxies", "read_timeout_ms", "max_header_bytes", "reuse_port", "refused_body", "tls", "cert_file",
        "key_file", "scope", "shadow", "default", "tenants", "per_ip", "host_arena", "rate", "burst",
        "bytes_per_second", "burst_bytes", "max_queue", "max_queue_bytes", "max_stored_bytes", "partitions", "max_batch", "max_delay_ms",
        "commit_deadline_ms", "ttl_seconds", "tenant", "verify", "scheme", "secrets", "tolerance_seconds", "header",
        "algorithm", "encoding", "json", "redis", "timeout_ms", "fallback", "breaker_failure_rate", "breaker_min_calls",
        "breaker_open_ms", "breaker_window_ms", "pending_ttl_ms", "settle_interval_ms", "settle_queue_max", "acme", "gh",
    };

    private static final String[] WORDS = {
        "127.0.0.1:0", "[::1]:0", "0.0.0.0:8080", "path", "tenant_path", "node", "host", "fleet", "hmac", "github",
        "stripe", "shopify", "slack", "standard_webhooks", "none", "svix", "sha256", "sha512", "hex", "base64",
        "close", "discard", "close_if_incomplete", "10.0.0.0/8", "::/0", "redis://127.0.0.1:6379", "local", "deny",
        "allow", "/hooks", "whsec_c2VjcmV0", "${SLUICE_X}", "${SLUICE_X:-5}", "${UNSET}", "$${X}", "",
    };

    @FuzzTest(maxDuration = "30s")
    void loaderGivesAConfigOrAConfigException(FuzzedDataProvider data) {
        String yaml;
        switch (data.consumeInt(0, 2)) {
            case 0 -> yaml = data.consumeRemainingAsString();
            case 1 -> {
                List<String> lines = new ArrayList<>(List.of(ConfigLoader.defaultYaml().split("\n", -1)));
                lines.add(data.consumeInt(0, lines.size()), data.consumeRemainingAsString());
                yaml = String.join("\n", lines);
            }
            default -> {
                try {
                    yaml = YAML.writeValueAsString(map(data, 0));
                } catch (JsonProcessingException e) {
                    throw new AssertionError(e);
                }
            }
        }
        SluiceConfig config;
        try {
            config = ConfigLoader.parse(yaml, Map.of("SLUICE_X", "7"), "fuzz.yaml");
        } catch (ConfigException refused) {
            assertThat(refused.errors()).isNotEmpty().allSatisfy(e -> assertThat(e).isNotBlank());
            return;
        }
        for (SourceConfig source : config.sources().values()) {
            Verifiers.create(source.verify(), "sources." + source.id() + ".verify");
            DedupeKeys.create(source.dedupe(), "sources." + source.id() + ".dedupe");
        }
    }

    private static Map<String, Object> map(FuzzedDataProvider data, int depth) {
        Map<String, Object> map = new LinkedHashMap<>();
        int entries = data.consumeInt(0, 5);
        for (int i = 0; i < entries; i++) {
            String key = data.consumeInt(0, 9) == 0 ? data.consumeString(10) : data.pickValue(KEYS);
            map.put(key, value(data, depth + 1));
        }
        return map;
    }

    private static Object value(FuzzedDataProvider data, int depth) {
        int pick = data.consumeInt(0, depth >= 4 ? 8 : 10);
        return switch (pick) {
            case 0 -> data.consumeInt();
            case 1 -> data.consumeLong();
            case 2 -> data.consumeDouble();
            case 3 -> data.consumeInt(-2, 70_000);
            case 4 -> data.consumeBoolean();
            case 5 -> null;
            case 6 -> data.consumeString(20);
            case 7, 8 -> data.pickValue(WORDS);
            case 9 -> {
                List<Object> list = new ArrayList<>();
                int n = data.consumeInt(0, 4);
                for (int i = 0; i < n; i++) {
                    list.add(value(data, depth + 1));
                }
                yield list;
            }
            default -> map(data, depth);
        };
    }
}
