package org.sluice.edge.config;

import java.util.Objects;
import org.sluice.edge.settings.ConfigWord;

/**
 * {@code logging}: how the server's log lines are written to stderr.
 *
 * @param format {@code text} (one line a record, date and zone first) or {@code json} (one
 *               JSON object a line, with the MDC, for a log pipeline)
 */
public record LoggingConfig(Format format) {

    /** {@code logging.format}. */
    public enum Format implements ConfigWord {
        TEXT,
        JSON;
    }

    public LoggingConfig {
        Objects.requireNonNull(format, "format");
    }

    public static LoggingConfig defaults() {
        return new LoggingConfig(Format.TEXT);
    }
}
