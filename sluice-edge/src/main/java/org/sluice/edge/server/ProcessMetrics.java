package org.sluice.edge.server;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The process's own meters on {@code /metrics}: Micrometer's JVM and system binders (memory,
 * GC, threads, classes, JIT, CPU, uptime and start time, open and maximum file descriptors,
 * the JVM's version) and {@code sluice_build_info{version,commit}}, a gauge of 1 whose tags
 * say which build runs (from {@code build.properties}, filled in by the build).
 */
final class ProcessMetrics {

    static final String BUILD_INFO = "sluice.build.info";
    static final String BUILD_RESOURCE = "build.properties";

    private ProcessMetrics() {
    }

    /** Binds every binder, and the build's gauge, to {@code registry}. */
    static void bindTo(MeterRegistry registry) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmCompilationMetrics().bindTo(registry);
        new JvmInfoMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        Properties build = build();
        Gauge.builder(BUILD_INFO, () -> 1)
                .tag("version", build.getProperty("version", "dev"))
                .tag("commit", build.getProperty("commit", "unknown"))
                .description("1; its tags name the version and the commit this server was built from")
                .register(registry);
    }

    /** The build's version and commit; an unfiltered or missing file (a build outside Maven) gives none. */
    static Properties build() {
        Properties p = new Properties();
        try (InputStream in = ProcessMetrics.class.getResourceAsStream(BUILD_RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + BUILD_RESOURCE, e);
        }
        p.entrySet().removeIf(e -> String.valueOf(e.getValue()).startsWith("${"));
        return p;
    }
}
