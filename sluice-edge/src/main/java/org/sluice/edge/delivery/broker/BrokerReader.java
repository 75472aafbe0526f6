package org.sluice.edge.delivery.broker;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.sluice.edge.delivery.targets.Target;
import org.sluice.edge.delivery.TargetReader;
import org.sluice.edge.settings.Section;

/**
 * What the readers of the broker types share: their keys are the common ones and their
 * own, and their attempts carry the broker headers (forwarded and Sluice's own; a broker
 * destination has neither {@code headers} nor {@code signing}). A subclass reads its own
 * keys ({@link #target}).
 */
public abstract class BrokerReader implements TargetReader {

    private final Target.Kind kind;
    private final List<String> keys;

    /**
     * @param kind    the kind of target read
     * @param ownKeys the keys only this type has, in the order messages list them after the common ones
     */
    protected BrokerReader(Target.Kind kind, List<String> ownKeys) {
        this.kind = kind;
        this.keys = TargetReader.withCommonKeys(ownKeys);
    }

    @Override
    public final Target.Kind kind() {
        return kind;
    }

    @Override
    public final List<String> keys() {
        return keys;
    }

    /** The target is built only when reading the type's own keys recorded no problem. */
    @Override
    public final Read read(Section s, List<String> forward) {
        int before = s.problems().size();
        Supplier<? extends Target> build = target(s);
        Target target = s.problems().size() == before ? build.get() : null;
        return new Read(target, TargetReader.headers(s, forward, Map.of(), null));
    }

    /**
     * Reads the type's own keys of {@code s}, recording every problem there, and gives what
     * builds the target from the values read; {@link #read} calls it only when no problem was
     * recorded, so it never sees a value a problem left out (null or empty).
     */
    protected abstract Supplier<? extends Target> target(Section s);
}
