package org.sluice.core;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * An immutable, validated limit: how many hooks per second a tenant (or any key) may
 * send, how many back to back, and optionally how many body bytes, how big one body,
 * and how much it may hold in flight.
 *
 * <table>
 *   <caption>Fields (snake_case as in config and the admin API)</caption>
 *   <tr><th>field</th><th>meaning</th><th>constraint</th></tr>
 *   <tr><td>{@code rate}</td><td>hooks per second; 0.5 = one every two seconds</td><td>number &gt; 0, required</td></tr>
 *   <tr><td>{@code burst}</td><td>most hooks admitted back to back</td><td>integer &gt;= 1, required</td></tr>
 *   <tr><td>{@code bytes_per_second}</td><td>body bytes per second</td><td>number &gt; 0</td></tr>
 *   <tr><td>{@code burst_bytes}</td><td>most body bytes back to back; default one second's worth</td><td>integer &gt;= 1, needs {@code bytes_per_second}</td></tr>
 *   <tr><td>{@code max_body_bytes}</td><td>biggest body</td><td>integer &gt;= 1, at most the instance's</td></tr>
 *   <tr><td>{@code max_queue}</td><td>hooks held in flight at once</td><td>integer &gt;= 1</td></tr>
 *   <tr><td>{@code max_queue_bytes}</td><td>body bytes held in flight at once</td><td>integer &gt;= 1</td></tr>
 * </table>
 *
 * <h2>Parsing rules ({@link #parse})</h2>
 * Values arrive JSON-shaped. A "number" is any {@link Number} ({@code Integer}, {@code
 * Long}, {@code Double}, {@code BigDecimal}, {@code BigInteger}, ...) that is finite. An
 * "integer" is a number with no fractional part: {@code 5}, {@code 5L} and {@code 5.0}
 * are all the integer 5 (as JSON Schema counts them); {@code 1.5} is refused. Strings
 * are never numbers ({@code "5"} is refused: nothing is inferred), nor are booleans, and
 * an explicit {@code null} is refused like any other wrong value rather than read as
 * "absent". Unknown keys are checked first; then the fields in the table's order.
 *
 * <h2>Integer policy for the hot path</h2>
 * Hooks: emission interval {@link #intervalNanos()} {@code = round(1e9 / rate)} ns (at
 * least 1) and tolerance {@link #toleranceNanos()} {@code = burst x interval}; see
 * {@link Gcra}. Bytes: at high byte rates one byte is worth less than a nanosecond, so
 * the byte interval is kept in <em>picoseconds per byte</em> ({@link #picosPerByte()}
 * {@code = round(1e12 / bytes_per_second)}, at least 1) and a charge of {@code n} bytes
 * costs {@link #byteIncrementNanos(long) round(n x picosPerByte / 1000)} ns. The
 * relative error is below {@code 0.5 / picosPerByte}: under 0.05% up to 1 GB/s, exact
 * whenever {@code 1e12 / bytes_per_second} is an integer. The byte tolerance is the
 * increment of {@link #effectiveBurstBytes()}. Very large values saturate at {@code
 * Long.MAX_VALUE / 4} ns (decades) so that sums cannot overflow.
 */
public final class Limit {

    public static final String RATE = "rate";
    public static final String BURST = "burst";
    public static final String BYTES_PER_SECOND = "bytes_per_second";
    public static final String BURST_BYTES = "burst_bytes";
    public static final String MAX_BODY_BYTES = "max_body_bytes";
    public static final String MAX_QUEUE = "max_queue";
    public static final String MAX_QUEUE_BYTES = "max_queue_bytes";

    /** Every field {@link #parse} accepts, in rendering order. */
    public static final Set<String> FIELDS = Collections.unmodifiableSet(new LinkedHashSet<>(
            List.of(RATE, BURST, BYTES_PER_SECOND, BURST_BYTES, MAX_BODY_BYTES, MAX_QUEUE, MAX_QUEUE_BYTES)));

    private static final long SATURATED_NANOS = Long.MAX_VALUE / 4;
    private static final double PICOS_PER_SECOND = 1e12;
    private static final int MAX_RENDERED_VALUE = 64;

    // As configured. Absent optionals: NaN for the double, 0 for the integers.
    private final double rate;
    private final int burst;
    private final double bytesPerSecond;
    private final long burstBytes;
    private final long maxBodyBytes;
    private final int maxQueue;
    private final long maxQueueBytes;

    // Derived integer policy.
    private final long intervalNanos;
    private final long toleranceNanos;
    private final long picosPerByte;
    private final long byteToleranceNanos;

    private Limit(double rate, int burst, double bytesPerSecond, long burstBytes, long maxBodyBytes,
                  int maxQueue, long maxQueueBytes) {
        this.rate = rate;
        this.burst = burst;
        this.bytesPerSecond = bytesPerSecond;
        this.burstBytes = burstBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.maxQueue = maxQueue;
        this.maxQueueBytes = maxQueueBytes;
        this.intervalNanos = Math.min(Gcra.emissionIntervalNanos(rate), SATURATED_NANOS);
        this.toleranceNanos = Gcra.toleranceNanos(intervalNanos, burst);
        if (Double.isNaN(bytesPerSecond)) {
            this.picosPerByte = 0L;
            this.byteToleranceNanos = 0L;
        } else {
            double picos = PICOS_PER_SECOND / bytesPerSecond;
            this.picosPerByte = picos >= SATURATED_NANOS ? SATURATED_NANOS : Math.max(1L, Math.round(picos));
            this.byteToleranceNanos = Math.max(1L, byteIncrementNanos(effectiveBurstBytes()));
        }
    }

    // ------------------------------------------------------------------ construction

    /**
     * A limit of {@code rate} hooks per second, {@code burst} back to back.
     *
     * @throws InvalidLimitException when {@code rate} is not a finite number &gt; 0 or
     *     {@code burst} &lt; 1
     */
    public static Limit of(double rate, int burst) {
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw mustBe(RATE, "a number greater than 0", rate);
        }
        if (burst < 1) {
            throw mustBe(BURST, "an integer of at least 1", burst);
        }
        return new Limit(rate, burst, Double.NaN, 0L, 0L, 0, 0L);
    }

    /** This limit with a byte bucket of {@code bytesPerSecond} (a finite number &gt; 0). */
    public Limit withBytesPerSecond(double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw mustBe(BYTES_PER_SECOND, "a number greater than 0", bytesPerSecond);
        }
        return new Limit(rate, burst, bytesPerSecond, burstBytes, maxBodyBytes, maxQueue, maxQueueBytes);
    }

    /**
     * This limit with {@code burst_bytes} (&gt;= 1). Needs {@link #withBytesPerSecond}
     * first: {@code burst_bytes needs bytes_per_second}.
     */
    public Limit withBurstBytes(long burstBytes) {
        if (burstBytes < 1) {
            throw mustBe(BURST_BYTES, "an integer of at least 1", burstBytes);
        }
        if (Double.isNaN(bytesPerSecond)) {
            throw InvalidLimitException.of(BURST_BYTES, "burst_bytes needs bytes_per_second");
        }
        return new Limit(rate, burst, bytesPerSecond, burstBytes, maxBodyBytes, maxQueue, maxQueueBytes);
    }

    /** This limit with {@code max_body_bytes} (&gt;= 1; the instance ceiling is checked by {@link #parse}). */
    public Limit withMaxBodyBytes(long maxBodyBytes) {
        if (maxBodyBytes < 1) {
            throw mustBe(MAX_BODY_BYTES, "an integer of at least 1", maxBodyBytes);
        }
        return new Limit(rate, burst, bytesPerSecond, burstBytes, maxBodyBytes, maxQueue, maxQueueBytes);
    }

    /** This limit with {@code max_queue} (&gt;= 1). */
    public Limit withMaxQueue(int maxQueue) {
        if (maxQueue < 1) {
            throw mustBe(MAX_QUEUE, "an integer of at least 1", maxQueue);
        }
        return new Limit(rate, burst, bytesPerSecond, burstBytes, maxBodyBytes, maxQueue, maxQueueBytes);
    }

    /** This limit with {@code max_queue_bytes} (&gt;= 1). */
    public Limit withMaxQueueBytes(long maxQueueBytes) {
        if (maxQueueBytes < 1) {
            throw mustBe(MAX_QUEUE_BYTES, "an integer of at least 1", maxQueueBytes);
        }
        return new Limit(rate, burst, bytesPerSecond, burstBytes, maxBodyBytes, maxQueue, maxQueueBytes);
    }

    // ------------------------------------------------------------------ accessors (as configured)

    /** Hooks per second. */
    public double rate() {
        return rate;
    }

    /** Most hooks admitted back to back. */
    public int burst() {
        return burst;
    }

    public OptionalDouble bytesPerSecond() {
        return Double.isNaN(bytesPerSecond) ? OptionalDouble.empty() : OptionalDouble.of(bytesPerSecond);
    }

    /** {@code burst_bytes} as configured; see {@link #effectiveBurstBytes()} for the one in force. */
    public OptionalLong burstBytes() {
        return burstBytes == 0 ? OptionalLong.empty() : OptionalLong.of(burstBytes);
    }

    /**
     * The byte burst in force: {@code burst_bytes} when configured, else one second's
     * worth ({@code round(bytes_per_second)}, at least 1); 0 when there is no byte bucket.
     */
    public long effectiveBurstBytes() {
        if (burstBytes != 0) {
            return burstBytes;
        }
        if (Double.isNaN(bytesPerSecond)) {
            return 0L;
        }
        return Math.max(1L, Math.round(bytesPerSecond));
    }

    public OptionalLong maxBodyBytes() {
        return maxBodyBytes == 0 ? OptionalLong.empty() : OptionalLong.of(maxBodyBytes);
    }

    public OptionalInt maxQueue() {
        return maxQueue == 0 ? OptionalInt.empty() : OptionalInt.of(maxQueue);
    }

    public OptionalLong maxQueueBytes() {
        return maxQueueBytes == 0 ? OptionalLong.empty() : OptionalLong.of(maxQueueBytes);
    }

    /** True when {@code bytes_per_second} is set, so hooks also charge a byte bucket. */
    public boolean hasByteBucket() {
        return !Double.isNaN(bytesPerSecond);
    }

    /** True when {@code max_queue} or {@code max_queue_bytes} is set. */
    public boolean hasQueueLimit() {
        return maxQueue != 0 || maxQueueBytes != 0;
    }

    // ------------------------------------------------------------------ integer policy

    /** Hook emission interval {@code round(1e9 / rate)} ns, at least 1: the increment of one hook. */
    public long intervalNanos() {
        return intervalNanos;
    }

    /** Hook tolerance {@code burst x intervalNanos()} ns. */
    public long toleranceNanos() {
        return toleranceNanos;
    }

    /** Byte interval in picoseconds per byte, {@code round(1e12 / bytes_per_second)} (at least 1); 0 without a byte bucket. */
    public long picosPerByte() {
        return picosPerByte;
    }

    /** Byte tolerance: the increment of {@link #effectiveBurstBytes()}, at least 1 ns; 0 without a byte bucket. */
    public long byteToleranceNanos() {
        return byteToleranceNanos;
    }

    /**
     * The byte-bucket increment of a body of {@code bytes}: {@code round(bytes x
     * picosPerByte / 1000)} ns, saturating at {@code Long.MAX_VALUE / 4}; 0 for {@code
     * bytes <= 0} or without a byte bucket. Allocation-free.
     */
    public long byteIncrementNanos(long bytes) {
        if (bytes <= 0 || picosPerByte == 0) {
            return 0L;
        }
        if (bytes > Long.MAX_VALUE / picosPerByte) {
            return SATURATED_NANOS;
        }
        long picos = bytes * picosPerByte;
        long nanos = picos / 1000 + (picos % 1000 >= 500 ? 1 : 0);
        return Math.min(nanos, SATURATED_NANOS);
    }

    // ------------------------------------------------------------------ parsing

    /**
     * Parses JSON-shaped attrs (see the class comment for what counts as a number or an
     * integer). {@code rate} and {@code burst} are required; nothing is inferred.
     *
     * @param instanceMaxBodyBytes the instance's {@code max_body_bytes}: the ceiling a
     *     limit's {@code max_body_bytes} may not pass
     * @throws InvalidLimitException naming the first problem found (unknown keys first,
     *     in sorted order, then the fields in the order of the class table)
     */
    public static Limit parse(Map<String, ?> attrs, long instanceMaxBodyBytes) {
        Objects.requireNonNull(attrs, "attrs");
        Set<String> unknown = new TreeSet<>();
        for (String key : attrs.keySet()) {
            if (!FIELDS.contains(key)) {
                unknown.add(String.valueOf(key));
            }
        }
        if (!unknown.isEmpty()) {
            throw InvalidLimitException.unknownField(unknown.iterator().next());
        }
        if (!attrs.containsKey(RATE)) {
            throw InvalidLimitException.of(RATE, "rate is required");
        }
        if (!attrs.containsKey(BURST)) {
            throw InvalidLimitException.of(BURST, "burst is required");
        }
        double rate = positiveNumber(RATE, attrs.get(RATE));
        long burst = positiveInteger(BURST, attrs.get(BURST), Integer.MAX_VALUE);
        Limit limit = Limit.of(rate, (int) burst);
        if (attrs.containsKey(BYTES_PER_SECOND)) {
            limit = limit.withBytesPerSecond(positiveNumber(BYTES_PER_SECOND, attrs.get(BYTES_PER_SECOND)));
        }
        if (attrs.containsKey(BURST_BYTES)) {
            limit = limit.withBurstBytes(positiveInteger(BURST_BYTES, attrs.get(BURST_BYTES), Long.MAX_VALUE));
        }
        if (attrs.containsKey(MAX_BODY_BYTES)) {
            Object raw = attrs.get(MAX_BODY_BYTES);
            long max = positiveInteger(MAX_BODY_BYTES, raw, Long.MAX_VALUE);
            if (max > instanceMaxBodyBytes) {
                throw InvalidLimitException.of(MAX_BODY_BYTES,
                        "max_body_bytes must be at most " + instanceMaxBodyBytes + ", got " + render(raw));
            }
            limit = limit.withMaxBodyBytes(max);
        }
        if (attrs.containsKey(MAX_QUEUE)) {
            limit = limit.withMaxQueue((int) positiveInteger(MAX_QUEUE, attrs.get(MAX_QUEUE), Integer.MAX_VALUE));
        }
        if (attrs.containsKey(MAX_QUEUE_BYTES)) {
            limit = limit.withMaxQueueBytes(positiveInteger(MAX_QUEUE_BYTES, attrs.get(MAX_QUEUE_BYTES), Long.MAX_VALUE));
        }
        return limit;
    }

    private static double positiveNumber(String field, Object raw) {
        double value = raw instanceof Number n ? n.doubleValue() : Double.NaN;
        if (!(value > 0) || Double.isInfinite(value)) {
            throw mustBe(field, "a number greater than 0", raw);
        }
        return value;
    }

    /** An integral number in {@code [1, max]}; integral doubles and BigDecimals count. */
    private static long positiveInteger(String field, Object raw, long max) {
        BigInteger value = integral(raw);
        if (value == null || value.signum() <= 0) {
            throw mustBe(field, "an integer of at least 1", raw);
        }
        if (value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw mustBe(field, "at most " + max, raw);
        }
        return value.longValue();
    }

    /** The integer {@code raw} denotes, or null when it is not an integral finite number. */
    private static BigInteger integral(Object raw) {
        if (raw instanceof Integer || raw instanceof Long || raw instanceof Short || raw instanceof Byte) {
            return BigInteger.valueOf(((Number) raw).longValue());
        }
        if (raw instanceof BigInteger big) {
            return big;
        }
        BigDecimal decimal;
        if (raw instanceof BigDecimal bd) {
            decimal = bd;
        } else if (raw instanceof Double || raw instanceof Float) {
            double d = ((Number) raw).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return null;
            }
            decimal = new BigDecimal(d);
        } else {
            return null;
        }
        try {
            return decimal.toBigIntegerExact();
        } catch (ArithmeticException fractional) {
            return null;
        }
    }

    private static InvalidLimitException mustBe(String field, String what, Object raw) {
        return InvalidLimitException.of(field, field + " must be " + what + ", got " + render(raw));
    }

    /** A value as it would read in JSON, cut short so that a hostile value cannot bloat a message. */
    static String render(Object raw) {
        String text;
        if (raw == null) {
            text = "null";
        } else if (raw instanceof CharSequence) {
            text = "\"" + raw.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        } else if (raw instanceof BigDecimal bd) {
            text = bd.toString();
        } else {
            text = String.valueOf(raw);
        }
        return text.length() <= MAX_RENDERED_VALUE ? text : text.substring(0, MAX_RENDERED_VALUE) + "...";
    }

    // ------------------------------------------------------------------ rendering

    /**
     * The limit in the JSON shape {@link #parse} reads: snake_case keys in the class
     * table's order, only the fields configured. Integers are {@code Long}; {@code rate}
     * and {@code bytes_per_second} are a {@code Long} when integral (below 2^53) and a
     * {@code Double} otherwise, so {@code parse(toMap())} gives an equal limit.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(RATE, number(rate));
        map.put(BURST, (long) burst);
        if (!Double.isNaN(bytesPerSecond)) {
            map.put(BYTES_PER_SECOND, number(bytesPerSecond));
        }
        if (burstBytes != 0) {
            map.put(BURST_BYTES, burstBytes);
        }
        if (maxBodyBytes != 0) {
            map.put(MAX_BODY_BYTES, maxBodyBytes);
        }
        if (maxQueue != 0) {
            map.put(MAX_QUEUE, (long) maxQueue);
        }
        if (maxQueueBytes != 0) {
            map.put(MAX_QUEUE_BYTES, maxQueueBytes);
        }
        return Collections.unmodifiableMap(map);
    }

    private static Number number(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 0x1p53) {
            return (long) value;
        }
        return value;
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof Limit that)) {
            return false;
        }
        return Double.compare(rate, that.rate) == 0
                && burst == that.burst
                && Double.compare(bytesPerSecond, that.bytesPerSecond) == 0
                && burstBytes == that.burstBytes
                && maxBodyBytes == that.maxBodyBytes
                && maxQueue == that.maxQueue
                && maxQueueBytes == that.maxQueueBytes;
    }

    @Override
    public int hashCode() {
        int h = Double.hashCode(rate);
        h = 31 * h + burst;
        h = 31 * h + Double.hashCode(bytesPerSecond);
        h = 31 * h + Long.hashCode(burstBytes);
        h = 31 * h + Long.hashCode(maxBodyBytes);
        h = 31 * h + maxQueue;
        h = 31 * h + Long.hashCode(maxQueueBytes);
        return h;
    }

    /** {@code Limit{rate=100, burst=50, bytes_per_second=...}}: the configured fields. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("Limit{");
        String sep = "";
        for (Map.Entry<String, Object> e : toMap().entrySet()) {
            out.append(sep).append(e.getKey()).append('=').append(e.getValue());
            sep = ", ";
        }
        return out.append('}').toString();
    }
}
