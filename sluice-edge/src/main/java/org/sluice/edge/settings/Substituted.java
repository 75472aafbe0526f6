package org.sluice.edge.settings;

/**
 * A string scalar that contained {@code ${...}} references, after substitution. Kept
 * apart from a plain string so that a typed key (a number, a boolean) may take its value
 * from the environment ({@code max_body_bytes: ${MAX_BODY:-8000000}}) while a quoted
 * literal {@code "8000000"} stays a string and is refused as a number.
 *
 * @param value      the text after substitution
 * @param expression the text as written in the file
 */
public record Substituted(String value, String expression) {
}
