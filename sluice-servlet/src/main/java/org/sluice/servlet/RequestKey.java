package org.sluice.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * What a request is counted against: the key {@link RateLimitFilter} charges. Keys of the
 * built-in kinds carry a prefix ({@code addr:}, {@code header:}, {@code user:}) so that a
 * header value can never take an address's bucket.
 */
@FunctionalInterface
public interface RequestKey {

    /** The key of {@code request}; never null. */
    String of(HttpServletRequest request);

    /** The peer's address ({@code getRemoteAddr()}); no header is read. */
    static RequestKey clientAddress() {
        return clientAddress(List.of());
    }

    /**
     * The client's address: the peer's, unless the peer is one of {@code trustedProxies}
     * (CIDRs such as {@code 10.0.0.0/8}, {@code ::1/128}, or single addresses); then
     * {@code X-Forwarded-For} is read from the right and the first entry that is not a
     * trusted proxy is the client. A header from an untrusted peer is ignored.
     *
     * @throws IllegalArgumentException naming the entry when one is not a CIDR
     */
    static RequestKey clientAddress(List<String> trustedProxies) {
        return clientAddress(new ClientAddress(trustedProxies));
    }

    /** The client's address as {@code address} finds it: {@link #clientAddress(List)} with a rule already built. */
    static RequestKey clientAddress(ClientAddress address) {
        return request -> {
            Enumeration<String> forwarded = request.getHeaders("X-Forwarded-For");
            return "addr:" + address.of(request.getRemoteAddr(), forwarded == null ? List.of() : Collections.list(forwarded));
        };
    }

    /**
     * The value of header {@code name} (an API key, a tenant id); a request without it is
     * counted by its client address under {@code fallback}.
     */
    static RequestKey header(String name, RequestKey fallback) {
        return request -> {
            String value = request.getHeader(name);
            return value == null || value.isEmpty() ? fallback.of(request) : "header:" + value;
        };
    }

    /**
     * The authenticated user's name ({@code getUserPrincipal()}); an anonymous request is
     * counted under {@code fallback}.
     */
    static RequestKey principal(RequestKey fallback) {
        return request -> {
            Principal user = request.getUserPrincipal();
            return user == null ? fallback.of(request) : "user:" + user.getName();
        };
    }
}
