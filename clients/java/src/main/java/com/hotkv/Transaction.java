package com.hotkv;

import java.util.List;
import java.util.Map;

import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;

/**
 * A MULTI/EXEC transaction on a dedicated connection, held from {@link HotKV#transaction()} until
 * {@link #close()} (WATCH state belongs to a connection).
 *
 * <p>{@link #watch} runs at once. MULTI is sent at the first queued command, so reads on the main
 * client between {@code watch} and the first command see the current values. Queued command
 * methods return Jedis {@link Response}s, filled in by {@link #exec()}. For commands not
 * wrapped here, use {@link #queue()} to get the underlying Jedis transaction.
 */
public class Transaction implements AutoCloseable {

    private final Connection conn;
    private redis.clients.jedis.Transaction inner;
    private boolean watching;
    private boolean done;
    private boolean closed;

    Transaction(Connection conn) {
        this.conn = conn;
    }

    /** WATCH keys: the next {@link #exec()} returns {@code null} if any of them changes first. */
    public Transaction watch(String... keys) {
        checkOpen();
        if (inner != null) throw new IllegalStateException("watch() must be called before the first queued command");
        conn.sendCommand(Protocol.Command.WATCH, keys);
        conn.getStatusCodeReply();
        watching = true;
        return this;
    }

    /** UNWATCH all keys watched on this transaction's connection. */
    public Transaction unwatch() {
        checkOpen();
        if (inner != null) throw new IllegalStateException("unwatch() must be called before the first queued command");
        conn.sendCommand(Protocol.Command.UNWATCH);
        conn.getStatusCodeReply();
        watching = false;
        return this;
    }

    /** The underlying Jedis transaction (MULTI already sent), for any command not wrapped here. */
    public redis.clients.jedis.Transaction queue() {
        checkOpen();
        if (done) throw new IllegalStateException("transaction already executed or discarded");
        if (inner == null) inner = new redis.clients.jedis.Transaction(conn, true);
        return inner;
    }

    /**
     * EXEC: runs the queued commands and returns their replies in order (a failed command's slot
     * holds its exception), or {@code null} when a watched key changed and nothing ran.
     */
    public List<Object> exec() {
        List<Object> r = queue().exec();
        done = true;
        watching = false;
        return r;
    }

    /** DISCARD the queued commands (or UNWATCH when nothing was queued yet). */
    public void discard() {
        checkOpen();
        if (inner != null && !done) {
            inner.discard();
        } else if (watching) {
            unwatch();
        }
        done = true;
        watching = false;
    }

    /** Discards anything not executed and returns the connection to the pool. */
    @Override
    public void close() {
        if (closed) return;
        try {
            if (!done && (inner != null || watching)) discard();
        } catch (RuntimeException ignored) {
            // a broken connection is dropped by the pool below
        } finally {
            closed = true;
            conn.close();
        }
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("transaction is closed");
    }

    // ---- strings / keys ----
    public Response<String> set(String key, String value) { return queue().set(key, value); }
    public Response<String> get(String key) { return queue().get(key); }
    public Response<String> getSet(String key, String value) { return queue().getSet(key, value); }
    public Response<String> setex(String key, long seconds, String value) { return queue().setex(key, seconds, value); }
    public Response<Long> setnx(String key, String value) { return queue().setnx(key, value); }
    public Response<List<String>> mget(String... keys) { return queue().mget(keys); }
    public Response<String> mset(String... keysvalues) { return queue().mset(keysvalues); }
    public Response<Long> incr(String key) { return queue().incr(key); }
    public Response<Long> incrBy(String key, long increment) { return queue().incrBy(key, increment); }
    public Response<Double> incrByFloat(String key, double increment) { return queue().incrByFloat(key, increment); }
    public Response<Long> decr(String key) { return queue().decr(key); }
    public Response<Long> decrBy(String key, long decrement) { return queue().decrBy(key, decrement); }
    public Response<Long> append(String key, String value) { return queue().append(key, value); }
    public Response<Long> del(String... keys) { return queue().del(keys); }
    public Response<Long> exists(String... keys) { return queue().exists(keys); }
    public Response<Long> expire(String key, long seconds) { return queue().expire(key, seconds); }
    public Response<Long> ttl(String key) { return queue().ttl(key); }
    public Response<Long> persist(String key) { return queue().persist(key); }

    // ---- lists ----
    public Response<Long> lpush(String key, String... values) { return queue().lpush(key, values); }
    public Response<Long> rpush(String key, String... values) { return queue().rpush(key, values); }
    public Response<String> lpop(String key) { return queue().lpop(key); }
    public Response<String> rpop(String key) { return queue().rpop(key); }
    public Response<Long> llen(String key) { return queue().llen(key); }
    public Response<List<String>> lrange(String key, long start, long stop) { return queue().lrange(key, start, stop); }
    public Response<String> ltrim(String key, long start, long stop) { return queue().ltrim(key, start, stop); }

    // ---- hashes ----
    public Response<Long> hset(String key, String field, String value) { return queue().hset(key, field, value); }
    public Response<Long> hset(String key, Map<String, String> hash) { return queue().hset(key, hash); }
    public Response<String> hget(String key, String field) { return queue().hget(key, field); }
    public Response<Map<String, String>> hgetAll(String key) { return queue().hgetAll(key); }
    public Response<Long> hdel(String key, String... fields) { return queue().hdel(key, fields); }
    public Response<Long> hincrBy(String key, String field, long value) { return queue().hincrBy(key, field, value); }

    // ---- sets / sorted sets ----
    public Response<Long> sadd(String key, String... members) { return queue().sadd(key, members); }
    public Response<Long> srem(String key, String... members) { return queue().srem(key, members); }
    public Response<java.util.Set<String>> smembers(String key) { return queue().smembers(key); }
    public Response<Boolean> sismember(String key, String member) { return queue().sismember(key, member); }
    public Response<Long> zadd(String key, double score, String member) { return queue().zadd(key, score, member); }
    public Response<Double> zincrby(String key, double increment, String member) { return queue().zincrby(key, increment, member); }
    public Response<Double> zscore(String key, String member) { return queue().zscore(key, member); }
    public Response<Long> zrem(String key, String... members) { return queue().zrem(key, members); }

    // ---- publish ----
    public Response<Long> publish(String channel, String message) { return queue().publish(channel, message); }
}
