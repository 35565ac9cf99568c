package com.hotkv;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** Starts one HotKV server for all tests (stopped when the test JVM exits) and a client per class. */
abstract class HotKVTestBase {
    static HotKVServer server;
    static HotKV client;

    @BeforeAll
    static void startServer() throws Exception {
        server = HotKVServer.get();
        client = new HotKV("127.0.0.1", server.port);
    }

    @AfterAll
    static void closeClient() {
        if (client != null) client.close();
    }

    @BeforeEach
    void flush() {
        client.flushAll();
    }
}
