package com.hotkv;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import redis.clients.jedis.Response;

class TransactionTest extends HotKVTestBase {

    /** The Java example from the transactions spec, verbatim. */
    @Test
    void specExample() {
        client.set("stock:widget", "5");
        boolean[] retried = {false};

        try (Transaction tx = client.transaction()) {
            tx.watch("stock:widget");
            long stock = Long.parseLong(client.get("stock:widget"));
            tx.set("stock:widget", Long.toString(stock - 1));

            List<Object> results = tx.exec();
            if (results == null) {
                // stock:widget changed after watch(): retry
                retried[0] = true;
            }
        }

        assertFalse(retried[0]);
        assertEquals("4", client.get("stock:widget"));
    }

    @Test
    void queuesAndExecutes() {
        try (Transaction tx = client.transaction()) {
            Response<Long> bal = tx.incr("account:42:balance");
            Response<Long> hist = tx.lpush("account:42:history", "deposit");
            List<Object> results = tx.exec();
            assertEquals(List.of(1L, 1L), results);
            assertEquals(1L, bal.get());
            assertEquals(1L, hist.get());
        }
    }

    @Test
    void execReturnsNullWhenWatchedKeyChanges() {
        client.set("stock:widget", "5");
        try (Transaction tx = client.transaction()) {
            tx.watch("stock:widget");
            long stock = Long.parseLong(client.get("stock:widget"));
            client.set("stock:widget", "100"); // another client changes it
            tx.set("stock:widget", Long.toString(stock - 1));
            assertNull(tx.exec());
        }
        assertEquals("100", client.get("stock:widget"));
    }

    @Test
    void discardOnCloseWithoutExec() {
        try (Transaction tx = client.transaction()) {
            tx.set("draft", "not saved");
        }
        assertNull(client.get("draft"));
        // connection went back to the pool in a clean state
        try (Transaction tx = client.transaction()) {
            tx.set("draft", "saved");
            assertNotNull(tx.exec());
        }
        assertEquals("saved", client.get("draft"));
    }

    @Test
    void runtimeErrorDoesNotRollBack() {
        client.set("name", "Ada");
        try (Transaction tx = client.transaction()) {
            tx.incr("name");
            tx.set("visited", "yes");
            List<Object> r = tx.exec();
            assertEquals(2, r.size());
            assertInstanceOf(Exception.class, r.get(0));
            assertEquals("OK", r.get(1));
        }
        assertEquals("yes", client.get("visited"));
    }

    @Test
    void concurrentTransfersPreserveTotal() throws Exception {
        String a = HotKV.key("bank", "a"), b = HotKV.key("bank", "b");
        client.set(a, "1000");
        client.set(b, "1000");
        int threads = 8, transfersPerThread = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final boolean aToB = t % 2 == 0;
            futures.add(pool.submit(() -> {
                int retries = 0;
                for (int i = 0; i < transfersPerThread; i++) {
                    while (true) {
                        try (Transaction tx = client.transaction()) {
                            tx.watch(a, b);
                            String from = aToB ? a : b, to = aToB ? b : a;
                            long fromBal = Long.parseLong(client.get(from));
                            if (fromBal < 3) { tx.discard(); break; }
                            tx.decrBy(from, 3);
                            tx.incrBy(to, 3);
                            if (tx.exec() != null) break;
                            retries++;
                        }
                    }
                }
                return retries;
            }));
        }
        for (Future<Integer> f : futures) f.get(60, TimeUnit.SECONDS);
        pool.shutdown();
        assertEquals(2000L, Long.parseLong(client.get(a)) + Long.parseLong(client.get(b)));
    }
}
