package org.sluice.bench.route;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.sluice.edge.route.EventType;
import org.sluice.edge.route.Filter;
import org.sluice.edge.route.FilterReader;
import org.sluice.edge.route.Routes;
import org.sluice.edge.route.Transform;
import org.sluice.edge.route.TransformReader;
import org.sluice.edge.settings.Problems;

/**
 * What routing and shaping cost per hook, on one thread: {@code select} is
 * {@link Routes#select} over the example {@code deliver_to} (one plain destination,
 * one {@code json in} filter, one {@code any} of a header and a JSON path) plus an
 * {@code event_type} prefix filter, for a Stripe-like body of {@code bodyBytes}; it parses
 * the body once. {@code unfiltered} is the same source without filters (the shared list, the
 * floor). {@code transform} applies a transformation of every part (path, query, a header,
 * a JSON body) to the same body. Run with {@code -prof gc} for the allocation per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FilterBenchmark {

    @Param({"512", "8192"})
    public int bodyBytes;

    private Routes filtered;
    private Routes unfiltered;
    private Transform transform;
    private byte[] body;
    private Function<String, String> headers;

    @Setup
    public void setUp() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        Problems problems = new Problems();
        Map<String, Filter> filters = Map.of(
                "billing", FilterReader.read(yaml.readValue(
                        "{json: \"$.type\", in: [\"invoice.paid\", \"invoice.payment_failed\"]}", Object.class), "b", problems),
                "audit", FilterReader.read(yaml.readValue("{any: [{header: X-GitHub-Event, equals: push},"
                        + " {json: \"$.data.object.livemode\", equals: true}]}", Object.class), "a", problems),
                "ledger", FilterReader.read(yaml.readValue("{event_type: {prefix: \"invoice.\"}}", Object.class), "l",
                        problems));
        transform = TransformReader.read(yaml.readValue("{method: PUT, path: \"/t/{tenant}/{$.type}\","
                + " query: {id: \"{$.data.object.id}\"}, headers: {X-Event: \"{$.type}\"},"
                + " body: {kind: \"{$.type}\", object: \"{$.data.object}\"}}", Object.class), "t", problems);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(problems.list().toString());
        }
        List<String> names = List.of("app", "billing", "audit", "ledger");
        filtered = Routes.of(names, filters, EventType.defaultFor("stripe"));
        unfiltered = Routes.unfiltered(names);
        StringBuilder json = new StringBuilder("{\"id\":\"evt_1\",\"type\":\"invoice.paid\",\"data\":{\"object\":"
                + "{\"id\":\"in_1\",\"livemode\":false,\"lines\":[");
        while (json.length() < bodyBytes - 40) {
            json.append(json.charAt(json.length() - 1) == '[' ? "" : ",").append("{\"amount\":1250,\"currency\":\"eur\"}");
        }
        body = json.append("]}}}").toString().getBytes(StandardCharsets.UTF_8);
        Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        h.put("Content-Type", "application/json");
        h.put("Stripe-Signature", "t=1,v1=abc");
        headers = h::get;
    }

    @Benchmark
    public List<String> select() {
        return filtered.select(headers, body);
    }

    @Benchmark
    public List<String> unfiltered() {
        return unfiltered.select(headers, body);
    }

    @Benchmark
    public Transform.Outcome transform() {
        return transform.apply(new Transform.Input("hook-1", "acme", "stripe", body), System::nanoTime);
    }
}
