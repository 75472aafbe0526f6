package org.sluice.edge.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.config.LoggingConfig;

/**
 * {@code logging.format}: the process's log lines as {@code logback.xml} writes them
 * ({@code text}), or one JSON object a line through Logback's own {@link JsonEncoder}
 * ({@code json}: {@code timestamp} in epoch milliseconds, {@code level}, {@code threadName},
 * {@code loggerName}, {@code mdc}, {@code formattedMessage}, {@code throwable}). The
 * command line applies it as soon as the configuration is read, before the server logs its
 * first line, by giving the stderr appender of {@code logback.xml} the JSON encoder; lines
 * logged before that (none in a normal start) are text.
 */
final class LogFormat {

    /** The appender {@code logback.xml} names. */
    static final String APPENDER = "STDERR";

    private LogFormat() {
    }

    static void apply(LoggingConfig logging) {
        if (logging.format() != LoggingConfig.Format.JSON) {
            return;
        }
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            return; // another SLF4J binding: its own configuration decides
        }
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        List<Appender<ILoggingEvent>> appenders = new ArrayList<>();
        root.iteratorForAppenders().forEachRemaining(appenders::add);
        for (Appender<ILoggingEvent> appender : appenders) {
            if (appender instanceof ConsoleAppender<ILoggingEvent> console && APPENDER.equals(console.getName())) {
                JsonEncoder json = new JsonEncoder();
                json.setContext(context);
                // the message as written ("formattedMessage"), not its pattern and arguments apart;
                // no per-process context or sequence numbers, which say nothing about the event
                json.setWithFormattedMessage(true);
                json.setWithMessage(false);
                json.setWithArguments(false);
                json.setWithContext(false);
                json.setWithSequenceNumber(false);
                json.setWithNanoseconds(false);
                json.start();
                console.stop();
                console.setEncoder(json);
                console.start();
            }
        }
    }
}
