package org.sluice.edge.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.netty.util.ResourceLeakDetector;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/**
 * For the fuzz targets that run real servers: collects everything logged at WARN or above
 * while it is on (an exception at the end of a pipeline, a failed hook), with Netty's leak
 * detector at {@code PARANOID} so that a leaked buffer is one of those warnings.
 */
final class WarningWatch {

    /** What was logged at WARN or above, one line each. */
    final Queue<String> problems = new ConcurrentLinkedQueue<>();
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
            if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
                problems.add(e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage()
                        + (e.getThrowableProxy() == null ? "" : " / " + e.getThrowableProxy().getClassName()
                        + ": " + e.getThrowableProxy().getMessage()));
            }
        }
    };
    private ResourceLeakDetector.Level leakLevelBefore;

    /** Leak detection to PARANOID, and the watch on the root logger. */
    void start() {
        leakLevelBefore = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        appender.start();
        root().addAppender(appender);
    }

    /** The watch off, and leak detection back to what it was. */
    void stop() {
        root().detachAppender(appender);
        ResourceLeakDetector.setLevel(leakLevelBefore);
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }
}
