package org.sluice.edge.store;

/**
 * What a dedupe lookup made from memory alone found ({@link HookStore#findDuplicateInMemory}).
 *
 * @param known    false when the answer is on the disk (or the store is busy reopening): the
 *                 caller asks {@link HookStore#findDuplicate}, which may wait for a read
 * @param original when known, the id of the committed hook with the key inside the dedupe
 *                 window, or null: not a duplicate
 */
public record DuplicateLookup(boolean known, String original) {

    /** Not answered from memory: ask {@link HookStore#findDuplicate}. */
    public static final DuplicateLookup NEEDS_DISK = new DuplicateLookup(false, null);

    /** Answered from memory: no committed hook holds the key inside the window. */
    public static final DuplicateLookup NONE = new DuplicateLookup(true, null);
}
