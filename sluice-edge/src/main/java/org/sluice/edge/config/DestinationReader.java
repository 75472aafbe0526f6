package org.sluice.edge.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sluice.core.Limit;
import org.sluice.edge.delivery.AdaptiveRate;
import org.sluice.edge.delivery.BreakerSettings;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.edge.delivery.SettingsException;
import org.sluice.edge.delivery.TargetReader;
import org.sluice.edge.delivery.http.HttpReader;
import org.sluice.edge.delivery.kafka.KafkaReader;
import org.sluice.edge.delivery.nats.NatsReader;
import org.sluice.edge.delivery.targets.Target;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;

/**
 * Reads {@code destinations:} into validated {@link Destination}s: the keys every type
 * shares here, a type's own keys by the {@link TargetReader} of its transport's room. The
 * delivery package judges its own settings (retry, breaker, headers, the signing secret)
 * and throws {@link SettingsException}; every such problem is recorded here with its key
 * path, next to the shape problems found while reading.
 */
final class DestinationReader {

    /** A destination name. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    static final String NAME_RULE = "1 to 64 characters from A-Z a-z 0-9 _ -";

    static final List<String> RETRY = List.of("initial_ms", "max_ms", "max_attempts", "max_age_seconds",
            "permanent_statuses");
    static final List<String> BREAKER = List.of("failures", "open_ms", "max_open_ms", "disable_after_seconds");
    /** The reader of each destination {@code type}, in the order messages list the types ({@link Target.Kind}'s). */
    static final Map<String, TargetReader> READERS = readers();
    static final List<String> DEFAULT_FORWARD_HEADERS = List.of("Content-Type");
    static final long MAX_TIMEOUT_MS = 3_600_000;
    static final int MAX_IN_FLIGHT = 10_000;

    private DestinationReader() {
    }

    private static Map<String, TargetReader> readers() {
        Map<String, TargetReader> byType = new LinkedHashMap<>();
        for (Target.Kind kind : Target.Kind.values()) {
            TargetReader r = reader(kind);
            if (r.kind() != kind) {
                throw new IllegalStateException(r + " reads " + r.kind() + ", not " + kind);
            }
            byType.put(kind.configName(), r);
        }
        return Collections.unmodifiableMap(byType);
    }

    /** The reader in each transport's room: one case per kind, and javac refuses a kind without one. */
    private static TargetReader reader(Target.Kind kind) {
        return switch (kind) {
            case HTTP -> new HttpReader();
            case KAFKA -> new KafkaReader();
            case NATS -> new NatsReader();
        };
    }

    static Map<String, Destination> read(Section root, long maxBodyBytes) {
        Map<String, Destination> out = new LinkedHashMap<>();
        Map<String, Object> entries = root.entries("destinations");
        if (entries == null) {
            return out;
        }
        for (Map.Entry<String, Object> e : entries.entrySet()) {
            String name = e.getKey();
            String path = Paths.child("destinations", name);
            if (!NAME.matcher(name).matches()) {
                root.problem("destinations has an invalid destination name " + Values.quote(name)
                        + ": a destination name is " + NAME_RULE);
                continue;
            }
            if (e.getValue() == null) {
                root.problem(path + " must be a mapping with at least url, got null");
                continue;
            }
            int before = root.problems().size();
            Object type = e.getValue() instanceof Map<?, ?> m ? m.get("type") : null;
            // an unknown type is reported by itself, not as a crowd of unknown keys
            TargetReader reader = READERS.get(type == null ? Target.Kind.HTTP.configName() : type);
            List<String> known = reader != null ? reader.keys()
                    : e.getValue() instanceof Map<?, ?> m ? m.keySet().stream().map(String::valueOf).toList() : HttpReader.KEYS;
            Section s = Section.of(root.problems(), path, e.getValue(), known);
            Destination d = destination(s, name, maxBodyBytes);
            if (root.problems().size() == before && d != null) {
                out.put(name, d);
            }
        }
        return out;
    }

    private static Destination destination(Section s, String name, long maxBodyBytes) {
        TargetReader reader = READERS.get(Target.Kind.HTTP.configName());
        if (s.has("type")) {
            String t = Values.string(s.raw("type"));
            reader = t == null ? null : READERS.get(t);
            if (reader == null) {
                s.problem(s.pathOf("type") + " must be one of " + String.join(", ", READERS.keySet()) + ", got "
                        + Values.render(s.raw("type")));
                return null;
            }
        }
        long timeoutMs = s.integer("timeout_ms", Destination.DEFAULT_TIMEOUT_MS, 1L, MAX_TIMEOUT_MS);
        int maxInFlight = s.integer("max_in_flight", Destination.DEFAULT_MAX_IN_FLIGHT, 1, MAX_IN_FLIGHT);
        Optional<AdaptiveRate> adaptive = adaptive(s);
        Optional<Limit> rate = adaptive.isPresent() || isAdaptive(s.raw("rate")) ? Optional.empty()
                : LimitReader.read(s.problems(), s.pathOf("rate"), s.raw("rate"), maxBodyBytes, LimitReader.RATE_AND_BURST);
        Ordering ordering = s.choice("ordering", Ordering.NONE);
        List<String> forward = forwardHeaders(s);
        RetryPolicy retry = retry(s);
        BreakerSettings breaker = disableAfter(s, breaker(s));
        TargetReader.Read own = reader.read(s, forward);
        if (own.target() == null || own.headers() == null || retry == null || breaker == null) {
            return null;
        }
        return new Destination(name, own.target(), timeoutMs, maxInFlight, rate, own.headers(), ordering, retry,
                breaker, own.transform(), adaptive);
    }

    /** Whether {@code raw} (the destination's {@code rate}) is a mapping whose {@code rate} is {@code adaptive}. */
    private static boolean isAdaptive(Object raw) {
        return raw instanceof Map<?, ?> m && AdaptiveRate.WORD.equals(Values.string(m.get(Limit.RATE)));
    }

    /**
     * {@code rate: {rate: adaptive, min, max}}: empty when {@code rate} is something else, or
     * when a problem was recorded (an unknown key, {@code min} or {@code max} absent, not a
     * number from 0.001 to a million, or {@code min} above {@code max}).
     */
    private static Optional<AdaptiveRate> adaptive(Section s) {
        if (!isAdaptive(s.raw("rate"))) {
            return Optional.empty();
        }
        Section r = s.section("rate", AdaptiveRate.KEYS);
        int before = r.problems().size();
        long min = perSecond(r, "min", "the pace it starts at and never goes below");
        long max = perSecond(r, "max", "the pace it never goes above");
        if (r.problems().size() != before) {
            return Optional.empty();
        }
        if (min > max) {
            r.problem(r.pathOf("max") + " must be at least " + r.pathOf("min") + " (" + Values.render(r.raw("min"))
                    + "), got " + Values.render(r.raw("max")));
            return Optional.empty();
        }
        return Optional.of(new AdaptiveRate(min, max));
    }

    /** The attempts per second at {@code key} of an adaptive rate, in thousandths; -1 with a problem recorded. */
    private static long perSecond(Section r, String key, String what) {
        if (!r.required(key, what + ", in attempts per second")) {
            return -1;
        }
        Double n = Values.number(r.raw(key));
        long milli = n == null ? -1 : AdaptiveRate.milli(n);
        if (milli < 0) {
            r.problem(r.pathOf(key) + " must be a number of attempts per second from 0.001 to "
                    + AdaptiveRate.MAX_MILLI / AdaptiveRate.MILLI + ", got " + Values.render(r.raw(key)));
        }
        return milli;
    }

    private static List<String> forwardHeaders(Section s) {
        if (!s.has("forward_headers")) {
            return DEFAULT_FORWARD_HEADERS;
        }
        List<?> raw = s.list("forward_headers");
        if (raw == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < raw.size(); i++) {
            String name = Values.string(raw.get(i));
            if (name == null) {
                s.problem(Paths.index(s.pathOf("forward_headers"), i) + " must be a header name, got "
                        + Values.render(raw.get(i)));
                ok = false;
            } else {
                out.add(name);
            }
        }
        return ok ? out : null;
    }

    private static RetryPolicy retry(Section s) {
        return settings(s, "retry", RETRY, RetryPolicy.defaults(), (r, d) -> {
            long initial = wide(r, "initial_ms", d.initialMs());
            long max = wide(r, "max_ms", d.maxMs());
            long attempts = wide(r, "max_attempts", d.maxAttempts());
            long age = wide(r, "max_age_seconds", d.maxAgeMillis() / 1000);
            List<Integer> statuses = permanentStatuses(r);
            return () -> RetryPolicy.of(s.path(), initial, max, attempts, age, statuses);
        });
    }

    private static List<Integer> permanentStatuses(Section r) {
        if (!r.has("permanent_statuses")) {
            return RetryPolicy.DEFAULT_PERMANENT_STATUSES;
        }
        List<?> raw = r.list("permanent_statuses");
        List<Integer> statuses = new ArrayList<>();
        if (raw != null) {
            for (int i = 0; i < raw.size(); i++) {
                BigInteger b = Values.integer(raw.get(i));
                if (b == null || b.bitLength() > 31) {
                    r.problem(Paths.index(r.pathOf("permanent_statuses"), i) + " must be an HTTP status, got "
                            + Values.render(raw.get(i)));
                } else {
                    statuses.add(b.intValue());
                }
            }
        }
        return statuses;
    }

    private static BreakerSettings breaker(Section s) {
        return settings(s, "breaker", BREAKER, BreakerSettings.defaults(), (b, d) -> {
            long failures = wide(b, "failures", d.failures());
            long open = wide(b, "open_ms", d.openMs());
            long maxOpen = wide(b, "max_open_ms", d.maxOpenMs());
            long disableAfter = wide(b, "disable_after_seconds", d.disableAfterMs() / 1000);
            return () -> BreakerSettings.of(s.path(), failures, open, maxOpen, disableAfter);
        });
    }

    /**
     * The breaker with the destination's {@code disable_after} applied: a duration written
     * {@code 5d}, {@code 12h}, {@code 30m}, {@code 90s} or a number of seconds (0: never); the
     * same setting as {@code breaker.disable_after_seconds}, so a destination may give one of the
     * two, not both.
     */
    private static BreakerSettings disableAfter(Section s, BreakerSettings breaker) {
        Object raw = s.raw("disable_after");
        if (raw == null || breaker == null) {
            return breaker;
        }
        if (s.raw("breaker") instanceof Map<?, ?> b && b.containsKey("disable_after_seconds")) {
            s.problem(s.pathOf("disable_after") + " and " + s.pathOf("breaker") + ".disable_after_seconds are the same"
                    + " setting: give one of them, got both");
            return null;
        }
        long seconds = durationSeconds(raw);
        if (seconds < 0 || seconds > BreakerSettings.MAX_DISABLE_AFTER_SECONDS) {
            s.problem(s.pathOf("disable_after") + " must be a duration such as 5d, 12h, 30m or 90s, or a number of"
                    + " seconds, from 0 (never) to " + BreakerSettings.MAX_DISABLE_AFTER_SECONDS + " seconds, got "
                    + Values.render(raw));
            return null;
        }
        return new BreakerSettings(breaker.failures(), breaker.openMs(), breaker.maxOpenMs(), seconds * 1000);
    }

    /** Seconds of {@code 5d}, {@code 12h}, {@code 30m}, {@code 90s} or a bare integer; -1 when it is none of them. */
    static long durationSeconds(Object raw) {
        BigInteger plain = Values.integer(raw);
        if (plain != null) {
            return plain.bitLength() < 40 ? plain.longValue() : -1;
        }
        String text = Values.string(raw);
        Matcher m = text == null ? null : DURATION.matcher(text.strip());
        if (m == null || !m.matches() || m.group(1).length() > 12) {
            return -1;
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "d" -> n * 86_400;
            case "h" -> n * 3_600;
            case "m" -> n * 60;
            default -> n;
        };
    }

    private static final Pattern DURATION = Pattern.compile("([0-9]+)([dhms])");

    /**
     * The settings in the optional mapping {@code key} of {@code s} (its keys {@code known}):
     * {@code defaults} without it; else {@code read} reads its values (with {@code defaults}
     * for the keys left out) and gives what builds the settings from them, and the result is
     * null when reading recorded a problem or the settings refuse the values (their errors
     * then recorded there).
     */
    private static <T> T settings(Section s, String key, List<String> known, T defaults,
                                  BiFunction<Section, T, Supplier<T>> read) {
        if (!s.has(key)) {
            return defaults;
        }
        Section section = s.section(key, known);
        int before = section.problems().size();
        Supplier<T> build = read.apply(section, defaults);
        if (section.problems().size() != before) {
            return null;
        }
        try {
            return build.get();
        } catch (SettingsException bad) {
            bad.errors().forEach(section::problem);
            return null;
        }
    }

    /** Any integer that fits a long; the delivery package judges the range with its own message. */
    private static long wide(Section s, String key, long def) {
        return s.integer(key, def, Long.MIN_VALUE, Long.MAX_VALUE);
    }
}
