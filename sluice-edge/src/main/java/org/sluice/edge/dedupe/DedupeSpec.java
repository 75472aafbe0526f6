package org.sluice.edge.dedupe;

/**
 * A source's {@code dedupe:} setting as configured: a provider name
 * ({@code github}, {@code standard_webhooks}, {@code svix}, {@code shopify}, {@code stripe}),
 * {@code {header: NAME}}, {@code {json: a.b}}, {@code body_sha256} or {@code none}.
 *
 * @param kind     which extractor
 * @param argument the header name for {@link Kind#HEADER}, the dotted path for {@link Kind#JSON}, else null
 */
public record DedupeSpec(Kind kind, String argument) {

    public enum Kind { GITHUB, STANDARD_WEBHOOKS, SVIX, SHOPIFY, STRIPE, HEADER, JSON, BODY_SHA256, NONE }

    public static final DedupeSpec NONE = new DedupeSpec(Kind.NONE, null);
}
