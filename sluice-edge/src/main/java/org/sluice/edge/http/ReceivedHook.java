package org.sluice.edge.http;

/** A request whose body has been read whole: what {@link HookHandler} works on. */
record ReceivedHook(IngestExchange exchange, byte[] body) {
}
