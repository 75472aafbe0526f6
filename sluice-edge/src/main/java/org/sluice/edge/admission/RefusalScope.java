package org.sluice.edge.admission;

import java.util.Locale;

/**
 * Which admission layer refused: the {@code scope} field of a 429 body and the fixed value
 * set of the {@code scope} label of {@code sluice_admission_refusals_total}.
 */
public enum RefusalScope {
    IP, NODE, SOURCE, TENANT, TENANT_BYTES, TENANT_OVERLOAD, TENANT_STORAGE, OVERLOAD;

    public final String label = name().toLowerCase(Locale.ROOT);
}
