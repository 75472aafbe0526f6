package org.sluice.bench.consuming;

import com.yammer.metrics.core.Meter;
import com.yammer.metrics.core.Metric;
import com.yammer.metrics.core.MetricName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;

/**
 * The request counts of the brokers in this JVM, for the benchmark scripts to read around a
 * counted window, so that the brokers' CPU a hook can be set against how the hooks reached
 * them: how many records each produce request carried, and how many follower fetches each
 * record cost.
 *
 * <p>The brokers of the test kit share one JVM and so one metrics registry: a meter of one
 * name is the sum over the three brokers, which is the figure wanted here. A script asks by
 * creating the file {@code ASK}; a daemon thread looking every 10 ms (one file check, so the
 * brokers' CPU stays theirs) answers in {@code OUT}, written whole and then moved into place,
 * as one line: {@code produce=N fetch_follower=N messages_in=N bytes_in=N}.
 */
final class BrokerCounters {

    private BrokerCounters() {
    }

    /** Starts the thread that answers each {@code ask} file with the counts in {@code out}. */
    static void answerOn(Path ask, Path out) {
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    if (Files.exists(ask)) {
                        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
                        Files.writeString(tmp, line() + "\n");
                        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                        Files.deleteIfExists(ask);
                    }
                    Thread.sleep(10);
                } catch (IOException e) {
                    System.err.println("broker counters: " + e);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-broker-counters");
        t.setDaemon(true);
        t.start();
    }

    /** The counts now, summed over the brokers (every request version). */
    static String line() {
        long produce = 0;
        long fetchFollower = 0;
        long messagesIn = 0;
        long bytesIn = 0;
        for (Map.Entry<MetricName, Metric> e : KafkaYammerMetrics.defaultRegistry().allMetrics().entrySet()) {
            if (!(e.getValue() instanceof Meter meter)) {
                continue;
            }
            MetricName name = e.getKey();
            String bean = name.getMBeanName() + ",";
            if ("RequestsPerSec".equals(name.getName()) && "RequestMetrics".equals(name.getType())) {
                if (bean.contains(",request=Produce,")) {
                    produce += meter.count();
                } else if (bean.contains(",request=FetchFollower,")) {
                    fetchFollower += meter.count();
                }
            } else if ("BrokerTopicMetrics".equals(name.getType()) && !bean.contains(",topic=")) {
                if ("MessagesInPerSec".equals(name.getName())) {
                    messagesIn += meter.count();
                } else if ("BytesInPerSec".equals(name.getName())) {
                    bytesIn += meter.count();
                }
            }
        }
        return "produce=" + produce + " fetch_follower=" + fetchFollower + " messages_in=" + messagesIn
                + " bytes_in=" + bytesIn;
    }
}
