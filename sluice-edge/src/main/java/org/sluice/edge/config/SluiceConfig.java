package org.sluice.edge.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.intake.IntakeSettings;

/**
 * A whole, validated Sluice configuration. Immutable; built by {@link ConfigLoader}, which
 * has already enforced every rule (including the cross-section ones such as
 * {@code tenant_path} needing {@code rate_limits.default}), so consumers read it as is.
 *
 * <p>Keys in the YAML file map to accessors by section: {@code node.data_dir} is
 * {@code node().dataDir()}, {@code rate_limits.default} is {@code rateLimits().defaultLimit()}.
 * See {@code docs/configuration.md} for every key, its default and its meaning.
 *
 * @param sources      by source id, in file order
 * @param destinations by destination name, in file order
 * @param logging      how log lines are written; applied by the command line, which owns the process
 * @param telemetry    traces: where they are exported (off by default) and how many are sampled
 */
public record SluiceConfig(
        NodeConfig node,
        AdminConfig admin,
        HttpConfig http,
        RateLimitsConfig rateLimits,
        IntakeSettings intake,
        DedupeConfig dedupe,
        Map<String, SourceConfig> sources,
        FleetConfig fleet,
        Map<String, Destination> destinations,
        RetentionConfig retention,
        StoreConfig store,
        LoggingConfig logging,
        TelemetryConfig telemetry,
        EventsConfig events) {

    public SluiceConfig {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(admin, "admin");
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(rateLimits, "rateLimits");
        Objects.requireNonNull(intake, "intake");
        Objects.requireNonNull(dedupe, "dedupe");
        Objects.requireNonNull(fleet, "fleet");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(logging, "logging");
        Objects.requireNonNull(telemetry, "telemetry");
        Objects.requireNonNull(events, "events");
        sources = Collections.unmodifiableMap(new LinkedHashMap<>(sources));
        destinations = Collections.unmodifiableMap(new LinkedHashMap<>(destinations));
    }

    /** A configuration without traces and without operational events ({@code telemetry} at its defaults, {@code events:} left out). */
    public SluiceConfig(NodeConfig node, AdminConfig admin, HttpConfig http, RateLimitsConfig rateLimits,
                        IntakeSettings intake, DedupeConfig dedupe, Map<String, SourceConfig> sources, FleetConfig fleet,
                        Map<String, Destination> destinations, RetentionConfig retention, StoreConfig store,
                        LoggingConfig logging) {
        this(node, admin, http, rateLimits, intake, dedupe, sources, fleet, destinations, retention, store, logging,
                TelemetryConfig.defaults(), EventsConfig.none());
    }

    /** Every key at its default, no sources: what an empty YAML file gives. */
    public static SluiceConfig defaults() {
        NodeConfig node = NodeConfig.defaults();
        return new SluiceConfig(node, AdminConfig.defaults(), HttpConfig.defaults(),
                RateLimitsConfig.defaults(node.id()), IntakeSettings.defaults(), DedupeConfig.defaults(),
                Map.of(), FleetConfig.defaults(), Map.of(), RetentionConfig.defaults(), StoreConfig.defaults(),
                LoggingConfig.defaults());
    }

    /** One line for the boot log: the settings an operator checks first. No secrets. */
    public String summary() {
        StringBuilder s = new StringBuilder();
        s.append("node=").append(node.id())
                .append(" data_dir=").append(node.dataDir())
                .append(" ingest=").append(http.tls().isPresent() ? "https://" : "http://").append(http.listen())
                .append(http.prefix().isEmpty() ? "/" : http.prefix())
                .append(" routing=").append(http.routing().configName())
                .append(" refused_body=").append(http.refusedBody().configName())
                .append(" admin=").append(admin.listen())
                .append(" scope=").append(rateLimits.scope().configName())
                .append(" shadow=").append(rateLimits.shadow())
                .append(" per_ip=").append(rateLimits.perIp().map(SluiceConfig::brief).orElse("off"))
                .append(" node_limit=").append(rateLimits.node().map(SluiceConfig::brief).orElse("off"))
                .append(" default_limit=").append(rateLimits.defaultLimit().map(SluiceConfig::brief).orElse("none"))
                .append(" tenants=").append(rateLimits.tenants().size())
                .append(" sources=").append(sources.size())
                .append(" partitions=").append(intake.partitions())
                .append(" dedupe=").append(dedupe.scope().configName()).append('/').append(dedupe.ttlSeconds()).append('s')
                .append(" destinations=").append(destinations.size())
                .append(" retention=").append(retention.hooksSeconds()).append("s/").append(retention.deadSeconds()).append('s')
                .append(" store=").append(store.kind().configName())
                .append(store.kafka().map(k -> "(" + String.join(",", k.bootstrapServers()) + " " + k.hooksTopic() + ")")
                        .orElse(""))
                .append(" store_max_bytes=").append(store.bounded() ? Long.toString(store.maxBytes()) : "off")
                .append(" tracing=").append(telemetry.tracing() ? "otlp/" + telemetry.samplingRatio() : "off");
        return s.toString();
    }

    private static String brief(org.sluice.core.Limit limit) {
        Object rate = limit.toMap().get(org.sluice.core.Limit.RATE);
        return rate + "/s burst " + limit.burst();
    }
}
