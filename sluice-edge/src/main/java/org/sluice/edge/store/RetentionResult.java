package org.sluice.edge.store;

/**
 * What one bounded retention pass did.
 *
 * @param examined           hooks looked at
 * @param hooksDeleted       hooks deleted (each with its id entry and its finished delivery rows)
 * @param deadLettersDeleted dead delivery rows deleted because they were older than the dead-letter retention
 * @param more               false when the pass reached hooks too young to delete (or the end), so the next pass
 *                           starts again from the oldest hook; true when it stopped at its bound
 * @param deliveredEarly     of {@code hooksDeleted}, the delivered hooks deleted before the hook retention because
 *                           the store was full ({@code sluice_retention_early_deleted_total})
 */
public record RetentionResult(int examined, int hooksDeleted, int deadLettersDeleted, boolean more, int deliveredEarly) {

    /** A pass that deleted nothing early. */
    public RetentionResult(int examined, int hooksDeleted, int deadLettersDeleted, boolean more) {
        this(examined, hooksDeleted, deadLettersDeleted, more, 0);
    }

    /** Rows deleted in all: {@code sluice_retention_deleted_total} counts these. */
    public int deleted() {
        return hooksDeleted + deadLettersDeleted;
    }
}
