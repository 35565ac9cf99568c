package com.hotkv;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;

import org.junit.jupiter.api.Test;

import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

class HotKVTest extends HotKVTestBase {

    static final String COUNTER = String.join("\n",
            "local current = tonumber(redis.call('GET', KEYS[1]) or \"0\")",
            "if current >= tonumber(ARGV[1]) then",
            "  return 0",
            "end",
            "redis.call('INCR', KEYS[1])",
            "return 1");

    @Test
    void keyBuildsHashTaggedKeys() {
        assertEquals("{user:42}:balance", HotKV.key("user:42", "balance"));
        assertEquals("{user:42}:a:b", HotKV.key("user:42", "a", "b"));
        assertEquals("{user:42}", HotKV.key("user:42"));
        assertThrows(IllegalArgumentException.class, () -> HotKV.key(""));
        assertThrows(IllegalArgumentException.class, () -> HotKV.key("a}b", "x"));
        // keys sharing a tag live in one slot: a cross-key command on them works
        client.mset(HotKV.key("user:42", "x"), "1", HotKV.key("user:42", "y"), "2");
        assertEquals(List.of("1", "2"), client.mget(HotKV.key("user:42", "x"), HotKV.key("user:42", "y")));
    }

    @Test
    void keyLockedScriptAndNoscriptFallback() {
        assertEquals("#!lua flags=allow-key-locking\nreturn 1", HotKV.withKeyLocking("return 1"));
        assertEquals("#!lua flags=no-writes\nreturn 1", HotKV.withKeyLocking("#!lua flags=no-writes\nreturn 1"));

        String quota = HotKV.key("user:42", "quota");
        client.scriptFlush();
        // first call: NOSCRIPT -> SCRIPT LOAD -> EVALSHA
        assertEquals(1L, client.evalKeyLocked(COUNTER, List.of(quota), List.of("2")));
        assertTrue(client.scriptExists(HotKV.sha1(HotKV.withKeyLocking(COUNTER)), quota));
        assertEquals(1L, client.evalKeyLocked(COUNTER, List.of(quota), List.of("2")));
        assertEquals(0L, client.evalKeyLocked(COUNTER, List.of(quota), List.of("2")));
        assertEquals("2", client.get(quota));

        // after SCRIPT FLUSH the client reloads it transparently
        client.scriptFlush();
        assertFalse(client.scriptExists(HotKV.sha1(HotKV.withKeyLocking(COUNTER)), quota));
        assertEquals(1L, client.evalKeyLocked(COUNTER, List.of(quota), List.of("3")));
        assertEquals("3", client.get(quota));
    }

    @Test
    void keyLockingFlagIsInEffect() {
        String script = "local k = '{' .. ARGV[1] .. '}:active'\nredis.call('SET', k, '1')\nreturn k";
        // same hash tag as the declared key: covered by its lock
        assertEquals("{queue}:active", client.evalKeyLocked(script, List.of("{queue}:wait"), List.of("queue")));
        // another hash tag: rejected because the script runs with allow-key-locking
        JedisDataException e = assertThrows(JedisDataException.class,
                () -> client.evalKeyLocked(script, List.of("{queue}:wait"), List.of("other")));
        assertTrue(e.getMessage().contains("Dynamic keys are not allowed"), e.getMessage());
    }

    @Test
    void uriConstructor() {
        for (String scheme : List.of("hotkv", "redis")) {
            try (HotKV c = new HotKV(scheme + "://127.0.0.1:" + server.port)) {
                c.set("uri:" + scheme, "ok");
                assertEquals("ok", client.get("uri:" + scheme));
                assertEquals(server.port, c.getPort());
            }
        }
        try (HotKV c = new HotKV("hotkv://127.0.0.1:" + server.port + "/0")) {
            assertEquals("PONG", c.ping());
        }
        assertThrows(IllegalArgumentException.class, () -> new HotKV("http://127.0.0.1:" + server.port));
    }

    @Test
    void connectionErrorNamesHostAndPort() throws Exception {
        int port = HotKVServer.freePort(); // nothing listens there
        HotKVConnectionException e = assertThrows(HotKVConnectionException.class, () -> new HotKV("127.0.0.1", port));
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        assertInstanceOf(JedisConnectionException.class, e);
        HotKVConnectionException e2 = assertThrows(HotKVConnectionException.class,
                () -> new HotKV("hotkv://127.0.0.1:" + port));
        assertTrue(e2.getMessage().contains("127.0.0.1:" + port), e2.getMessage());
    }

    @Test
    void jedisCommandsAvailable() {
        client.hset("h", "f", "v");
        assertEquals("v", client.hget("h", "f"));
        assertEquals(2L, client.lpush("l", "a", "b"));
    }
}
