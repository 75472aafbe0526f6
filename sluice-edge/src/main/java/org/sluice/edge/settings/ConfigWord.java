package org.sluice.edge.settings;

import java.util.Locale;

/**
 * A choice a config key takes, one of an enum's constants, spelled in the file as the
 * constant's name in lower case ({@code TENANT_PATH} is {@code tenant_path}): the one rule
 * every such enum of the config and of delivery follows, written once. Read with
 * {@link Section#choice(String, Enum)}.
 *
 * <p>The enums of {@code delivery.targets} and {@code netio} spell their constants the same
 * way on their own: those rooms stand on the JDK (and Netty) only, below this one.
 */
public interface ConfigWord {

    /** The constant's name: every enum has it. */
    String name();

    /** The spelling used in the YAML file. */
    default String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
