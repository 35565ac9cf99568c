package com.hotkv;

import redis.clients.jedis.exceptions.JedisConnectionException;

/** Thrown when the client cannot reach a HotKV server; the message names host:port. */
public class HotKVConnectionException extends JedisConnectionException {
    private final String host;
    private final int port;

    public HotKVConnectionException(String host, int port, Throwable cause) {
        super("cannot connect to HotKV at " + host + ":" + port
                + (cause != null && cause.getMessage() != null ? ": " + rootMessage(cause) : ""), cause);
        this.host = host;
        this.port = port;
    }

    public String getHost() { return host; }

    public int getPort() { return port; }

    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) r = r.getCause();
        String m = r.getMessage();
        return m != null ? m : t.getMessage();
    }
}
