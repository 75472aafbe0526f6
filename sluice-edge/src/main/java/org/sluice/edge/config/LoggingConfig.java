package org.sluice.edge.config;

import java.util.Locale;
import java.util.Objects;

/**
 * {@code logging}: how the server's log lines are written to stderr.
 *
 * @param format {@code text} (one line a record, date and zone first) or {@code json} (one
 *               JSON object a line, with the MDC, for a log pipeline)
 */
public record LoggingConfig(Format format) {

    /** {@code logging.format}. */
    public enum Format {
        TEXT,
        JSON;

        /** The spelling used in the YAML file. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public LoggingConfig {
        Objects.requireNonNull(format, "format");
    }

    public static LoggingConfig defaults() {
        return new LoggingConfig(Format.TEXT);
    }
}
