package org.sluice.edge.server;

import io.nats.client.NKey;
import io.nats.client.support.JwtUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * Decentralised NATS authentication made in the test: an operator, one account it signs
 * (JetStream allowed without limits) and users of that account, as JWTs signed with fresh
 * NKeys. {@link #serverConfig} trusts the operator and preloads the account into a
 * {@code MEMORY} resolver (with a system account, without which the server starts no
 * JetStream), so a server started on it admits only a client holding a
 * {@code .creds} file of one of this account's users ({@link #userCreds}).
 */
final class NatsOperator {

    /** Account limits: -1 is "no limit"; the storage limits turn JetStream on for the account. */
    private static final String ACCOUNT_CLAIM = """
            {"limits":{"subs":-1,"data":-1,"payload":-1,"imports":-1,"exports":-1,"wildcards":true,"conn":-1,\
            "leaf":-1,"mem_storage":-1,"disk_storage":-1,"streams":-1,"consumer":-1},\
            "default_permissions":{"pub":{},"sub":{}},"type":"account","version":2}""";
    private static final String SYSTEM_CLAIM = "{\"type\":\"account\",\"version\":2}";
    private static final String OPERATOR_CLAIM = "{\"type\":\"operator\",\"version\":2}";

    private final NKey operator;
    private final NKey account;
    private final String accountId;
    private final String operatorJwt;
    private final String accountJwt;
    /** The server's own account (JetStream needs one in operator mode); no user of it is made. */
    private final String systemId;
    private final String systemJwt;

    private NatsOperator() {
        try {
            operator = NKey.createOperator(null);
            account = NKey.createAccount(null);
            String operatorId = new String(operator.getPublicKey());
            accountId = new String(account.getPublicKey());
            long now = JwtUtils.currentTimeSeconds();
            operatorJwt = JwtUtils.issueJWT(operator, operatorId, "sluice-test-operator", null, now, operatorId, null,
                    () -> OPERATOR_CLAIM);
            accountJwt = JwtUtils.issueJWT(operator, accountId, "sluice-test-account", null, now, operatorId, null,
                    () -> ACCOUNT_CLAIM);
            systemId = new String(NKey.createAccount(null).getPublicKey());
            systemJwt = JwtUtils.issueJWT(operator, systemId, "SYS", null, now, operatorId, null, () -> SYSTEM_CLAIM);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static NatsOperator create() {
        return new NatsOperator();
    }

    /** Writes a server config trusting this operator and its account to {@code file}; for {@code nats-server -c}. */
    Path serverConfig(Path file) throws IOException {
        Files.writeString(file, """
                operator: "%s"
                system_account: %s
                resolver: MEMORY
                resolver_preload: {
                  %s: "%s"
                  %s: "%s"
                }
                """.formatted(operatorJwt, systemId, systemId, systemJwt, accountId, accountJwt), StandardCharsets.UTF_8);
        return file;
    }

    /** Writes a {@code .creds} file (user JWT and NKey seed) of a new user {@code name} of the account to {@code file}. */
    Path userCreds(Path file, String name) throws IOException {
        try {
            NKey user = NKey.createUser(null);
            String jwt = JwtUtils.issueUserJWT(account, accountId, new String(user.getPublicKey()), name);
            Files.writeString(file, JwtUtils.NATS_USER_JWT_FORMAT.formatted(jwt, new String(user.getSeed())),
                    StandardCharsets.UTF_8);
            return file;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
