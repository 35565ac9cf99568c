package com.hotkv;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.List;

import javax.net.ssl.SSLSocketFactory;

import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A HotKV client. It is a {@link JedisPooled}, so every Jedis command ({@code get}, {@code set},
 * {@code hset}, {@code eval}, ...) is available directly, backed by a connection pool.
 *
 * <pre>{@code
 * HotKV client = new HotKV("localhost", 6379);
 * client.set(HotKV.key("user:42", "balance"), "100");   // "{user:42}:balance"
 * try (Transaction tx = client.transaction()) { ... }
 * }</pre>
 */
public class HotKV extends JedisPooled {

    /** Shebang prepended to scripts run with {@link #evalKeyLocked} that have none. */
    public static final String KEY_LOCKING_SHEBANG = "#!lua flags=allow-key-locking\n";

    private final String host;
    private final int port;

    /** Connects to HotKV at host:port; fails at once with {@link HotKVConnectionException} if unreachable. */
    public HotKV(String host, int port) {
        super(defaultPoolConfig(), host, port);
        this.host = host;
        this.port = port;
        checkConnection();
    }

    /**
     * Connects to HotKV at host:port with a Jedis client configuration: TLS ({@code ssl(true)},
     * {@code sslSocketFactory(HotKV.sslSocketFactory(...))}), user and password, database, timeouts.
     *
     * <pre>{@code
     * HotKV client = new HotKV("localhost", 6379,
     *         DefaultJedisClientConfig.builder().user("default").password("secret").build());
     * }</pre>
     */
    public HotKV(String host, int port, JedisClientConfig config) {
        super(defaultPoolConfig(), new HostAndPort(host, port), config);
        this.host = host;
        this.port = port;
        checkConnection();
    }

    /** Connects using a {@code hotkv://[user:password@]host:port[/db]} or {@code redis://...} URI. */
    public HotKV(String uri) {
        this(URI.create(uri));
    }

    /** Connects using a {@code hotkv://}, {@code hotkvs://} (TLS), {@code redis://} or {@code rediss://} URI. */
    public HotKV(URI uri) {
        super(defaultPoolConfig(), toRedisUri(uri));
        this.host = uri.getHost();
        this.port = uri.getPort() == -1 ? 6379 : uri.getPort();
        checkConnection();
    }

    /**
     * Connects using a {@code hotkvs://} or {@code rediss://} URI (TLS) whose connections come from
     * {@code sslSocketFactory}, e.g. {@link #sslSocketFactory(Path, Path, Path)} for a CA file and
     * a client certificate.
     */
    public HotKV(URI uri, SSLSocketFactory sslSocketFactory) {
        super(defaultPoolConfig(), toRedisUri(uri), sslSocketFactory, null, null);
        this.host = uri.getHost();
        this.port = uri.getPort() == -1 ? 6379 : uri.getPort();
        checkConnection();
    }

    /**
     * An {@link SSLSocketFactory} from PEM files, the ones the server's {@code tls-ca-cert-file},
     * {@code tls-cert-file} and {@code tls-key-file} take: it trusts the certificates in
     * {@code caCertFile} (null: the JVM's default trust store) and presents the client
     * certificate {@code clientCertFile} with its unencrypted private key {@code clientKeyFile}
     * (PKCS#8, SEC1 "EC PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY"; both null: no client
     * certificate, for servers with {@code tls-auth-clients no} or {@code optional}).
     */
    public static SSLSocketFactory sslSocketFactory(Path caCertFile, Path clientCertFile, Path clientKeyFile)
            throws IOException {
        return PemTls.sslSocketFactory(caCertFile, clientCertFile, clientKeyFile);
    }

    /**
     * Pool of up to 64 connections; a borrow waits at most 10 s. Each open {@link Transaction}
     * holds one connection, so keep fewer transactions open at once than the pool size.
     */
    static redis.clients.jedis.ConnectionPoolConfig defaultPoolConfig() {
        redis.clients.jedis.ConnectionPoolConfig c = new redis.clients.jedis.ConnectionPoolConfig();
        c.setMaxTotal(64);
        c.setMaxIdle(64);
        c.setMaxWait(java.time.Duration.ofSeconds(10));
        return c;
    }

    public String getHost() { return host; }

    public int getPort() { return port; }

    /**
     * Builds a key whose parts share one hash tag, so they lock together and live in one cluster
     * slot: {@code key("user:42", "balance")} is {@code "{user:42}:balance"}.
     */
    public static String key(String tag, String... parts) {
        if (tag == null || tag.isEmpty()) throw new IllegalArgumentException("hash tag must not be empty");
        if (tag.indexOf('{') >= 0 || tag.indexOf('}') >= 0)
            throw new IllegalArgumentException("hash tag must not contain '{' or '}': " + tag);
        StringBuilder sb = new StringBuilder().append('{').append(tag).append('}');
        for (String p : parts) sb.append(':').append(p);
        return sb.toString();
    }

    /**
     * Starts a transaction on a dedicated connection held until {@link Transaction#close()}.
     * Call {@code watch(...)} first if needed; MULTI is sent at the first queued command.
     */
    public Transaction transaction() {
        Connection conn;
        try {
            conn = getPool().getResource();
        } catch (JedisConnectionException e) {
            throw new HotKVConnectionException(host, port, e);
        }
        return new Transaction(conn);
    }

    /** Returns the script with {@code #!lua flags=allow-key-locking} prepended when it has no shebang. */
    public static String withKeyLocking(String script) {
        return script.startsWith("#!") ? script : KEY_LOCKING_SHEBANG + script;
    }

    /**
     * Runs a Lua script with the {@code allow-key-locking} flag (added when the script has no
     * shebang) via EVALSHA, loading it with SCRIPT LOAD first when the server answers NOSCRIPT.
     * Every key the script touches must be in {@code keys} or share a hash tag with one of them.
     */
    public Object evalKeyLocked(String script, List<String> keys, List<String> args) {
        String body = withKeyLocking(script);
        String sha = sha1(body);
        try {
            return evalsha(sha, keys, args);
        } catch (JedisDataException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT")) throw e;
        }
        scriptLoad(body);
        return evalsha(sha, keys, args);
    }

    public Object evalKeyLocked(String script, List<String> keys) {
        return evalKeyLocked(script, keys, Collections.emptyList());
    }

    static String sha1(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder(40);
            for (byte b : d) sb.append(String.format("%02x", b));
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void checkConnection() {
        try (Connection c = getPool().getResource()) {
            c.ping();
        } catch (JedisConnectionException e) {
            try { close(); } catch (RuntimeException ignored) { }
            throw new HotKVConnectionException(host, port, e);
        } catch (RuntimeException e) { // e.g. NOAUTH or WRONGPASS: do not leak the pool
            try { close(); } catch (RuntimeException ignored) { }
            throw e;
        }
    }

    private static URI toRedisUri(URI uri) {
        String scheme = uri.getScheme();
        if (scheme == null) throw new IllegalArgumentException("URI needs a scheme (hotkv:// or redis://): " + uri);
        String s;
        switch (scheme.toLowerCase()) {
            case "hotkv": case "redis": s = "redis"; break;
            case "hotkvs": case "rediss": s = "rediss"; break;
            default: throw new IllegalArgumentException("unsupported URI scheme '" + scheme + "': use hotkv:// or redis://");
        }
        if (uri.getHost() == null) throw new IllegalArgumentException("URI has no host: " + uri);
        try {
            return new URI(s, uri.getUserInfo(), uri.getHost(), uri.getPort() == -1 ? 6379 : uri.getPort(),
                    uri.getPath(), uri.getQuery(), null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
