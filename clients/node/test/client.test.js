import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { HotKV, HotKVConnectionError, key, parseOptions, withKeyLocking } from "@hotkv/client";
import { startServer, freePort } from "../test-support/server.js";

let server;
let client;
before(async () => {
  server = await startServer();
  client = new HotKV({ url: server.url });
  await client.connect();
});
after(async () => {
  await client?.quit();
  await server?.stop();
});

test("node-redis commands are delegated", async () => {
  assert.equal(await client.set("greeting", "hello"), "OK");
  assert.equal(await client.get("greeting"), "hello");
  assert.equal(await client.incr("counter"), 1);
  await client.hSet("h", { a: "1", b: "2" });
  assert.deepEqual({ ...(await client.hGetAll("h")) }, { a: "1", b: "2" });
  assert.equal(await client.sendCommand(["PING"]), "PONG");
});

test("commands connect lazily", async () => {
  const c = new HotKV({ host: "127.0.0.1", port: server.port });
  try {
    assert.equal(await c.ping(), "PONG");
  } finally {
    await c.quit();
  }
});

test("watch + exec returns results", async () => {
  await client.set("wx", "10");
  const tx = await client.watch("wx");
  const v = Number(await client.get("wx"));
  tx.set("wx", String(v + 1)).incr("wx-count");
  assert.deepEqual(await tx.exec(), ["OK", 1]);
  assert.equal(await client.get("wx"), "11");
});

test("watch + exec returns null when another client changed the key", async () => {
  await client.set("stock:widget", "5");
  const other = new HotKV({ url: server.url.replace("hotkv://", "redis://") });
  try {
    const tx = await client.watch("stock:widget");
    const stock = Number(await client.get("stock:widget"));
    await other.set("stock:widget", "100");
    tx.set("stock:widget", String(stock - 1));
    assert.equal(await tx.exec(), null);
    assert.equal(await client.get("stock:widget"), "100");
    // The dedicated connection is reusable and unwatched afterwards.
    const tx2 = await client.watch("stock:widget");
    tx2.decr("stock:widget");
    assert.deepEqual(await tx2.exec(), [99]);
  } finally {
    await other.quit();
  }
});

test("discard drops the watch and queued commands", async () => {
  await client.set("d", "1");
  const tx = await client.watch("d");
  tx.set("d", "2");
  await tx.discard();
  assert.equal(await client.get("d"), "1");
});

test("multi() runs without WATCH", async () => {
  await client.del(["acct:42:balance", "acct:42:history"]);
  const res = await client.multi().incr("acct:42:balance").lPush("acct:42:history", "deposit").exec();
  assert.deepEqual(res, [1, 1]);
});

test("run-time error inside EXEC stays in its slot", async () => {
  await client.set("name", "Ada");
  const res = await client.multi().incr("name").set("visited", "yes").exec();
  assert.ok(res[0] instanceof Error);
  assert.match(res[0].message, /not an integer/);
  assert.equal(res[1], "OK");
});

test("concurrent transfers preserve the total", async () => {
  const accounts = ["a", "b", "c", "d"].map((n) => key("bank", n));
  for (const k of accounts) await client.set(k, "100");
  let retries = 0;
  const one = async (i) => {
    const from = accounts[i % 4];
    const to = accounts[(i * 7 + 1) % 4 === i % 4 ? (i + 1) % 4 : (i * 7 + 1) % 4];
    for (;;) {
      const tx = await client.watch(from, to);
      const [f, t] = (await client.mGet([from, to])).map(Number);
      tx.set(from, String(f - 1)).set(to, String(t + 1));
      if ((await tx.exec()) !== null) return;
      retries++;
    }
  };
  await Promise.all(Array.from({ length: 200 }, (_, i) => one(i)));
  const total = (await client.mGet(accounts)).map(Number).reduce((x, y) => x + y, 0);
  assert.equal(total, 400);
  // transaction() helper retries on its own
  await Promise.all(Array.from({ length: 50 }, () =>
    client.transaction([accounts[0], accounts[1]], async (tx) => {
      const [f, t] = (await client.mGet([accounts[0], accounts[1]])).map(Number);
      tx.set(accounts[0], String(f - 2)).set(accounts[1], String(t + 2));
    }, { maxRetries: 1000 })));
  const total2 = (await client.mGet(accounts)).map(Number).reduce((x, y) => x + y, 0);
  assert.equal(total2, 400);
  assert.ok(retries >= 0);
});

test("key() builds hash-tagged keys", () => {
  assert.equal(key("user:42", "balance"), "{user:42}:balance");
  assert.equal(key("queue", "wait"), "{queue}:wait");
  assert.equal(key("t"), "{t}");
  assert.equal(key("order", 7, "items"), "{order}:7:items");
  assert.throws(() => key(""), TypeError);
  assert.throws(() => key("a}b", "x"), TypeError);
});

const COUNTER = `local current = tonumber(redis.call('GET', KEYS[1]) or "0")
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('INCR', KEYS[1])
return 1`;

test("withKeyLocking() prepends the shebang only when missing", () => {
  assert.equal(withKeyLocking("return 1"), "#!lua flags=allow-key-locking\nreturn 1");
  assert.equal(withKeyLocking("#!lua flags=no-writes\nreturn 1"), "#!lua flags=no-writes\nreturn 1");
});

test("key-locked script runs, and falls back to SCRIPT LOAD after SCRIPT FLUSH", async () => {
  const quota = key("user:42", "quota");
  await client.del(quota);
  assert.equal(await client.runScript(COUNTER, { keys: [quota], arguments: [2] }), 1);
  assert.equal(await client.runScript(COUNTER, { keys: [quota], arguments: [2] }), 1);
  assert.equal(await client.runScript(COUNTER, { keys: [quota], arguments: [2] }), 0);
  assert.equal(await client.sendCommand(["SCRIPT", "FLUSH"]), "OK");
  await client.del(quota);
  assert.equal(await client.runScript(COUNTER, { keys: [quota], arguments: [5] }), 1);
  assert.equal(await client.get(quota), "1");
});

test("key-locked script rejects a dynamic key with another hash tag", async () => {
  const script = "return redis.call('INCR', '{other}:active')";
  await assert.rejects(client.runScript(script, { keys: [key("queue", "wait")] }), /Dynamic keys are not allowed|allow-key-locking/);
  const ok = "local d = '{queue}:' .. ARGV[1]\nreturn redis.call('INCR', d)";
  assert.equal(await client.runScript(ok, { keys: [key("queue", "wait")], arguments: ["active"] }), 1);
});

test("URL forms and options", async () => {
  assert.deepEqual(parseOptions({ url: "hotkv://127.0.0.1:7000" }).port, 7000);
  assert.deepEqual(parseOptions({ url: "redis://h:7001" }), { host: "h", port: 7001, username: undefined, password: undefined, database: undefined, tls: false });
  const p = parseOptions({ url: "hotkvs://user:p%40ss@example.com:7002/3" });
  assert.deepEqual(p, { host: "example.com", port: 7002, username: "user", password: "p@ss", database: 3, tls: true });
  assert.equal(parseOptions({ url: "hotkv://localhost" }).port, 6379);
  assert.deepEqual(parseOptions({ host: "10.0.0.1", port: 7003, password: "x" }).password, "x");
  assert.throws(() => parseOptions({ url: "http://x:1" }), /unsupported URL scheme/);
  for (const url of [server.url, server.url.replace("hotkv://", "redis://")]) {
    const c = new HotKV({ url });
    try { assert.equal(await c.ping(), "PONG"); } finally { await c.quit(); }
  }
  const c = new HotKV(server.url);
  try { assert.equal(await c.ping(), "PONG"); } finally { await c.quit(); }
});

test("connection error names host:port", async () => {
  const port = await freePort();
  const c = new HotKV({ url: `hotkv://127.0.0.1:${port}` });
  await assert.rejects(c.connect(), (err) => {
    assert.ok(err instanceof HotKVConnectionError);
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.match(err.message, /ECONNREFUSED/);
    return true;
  });
  const c2 = new HotKV({ host: "127.0.0.1", port });
  await assert.rejects(c2.get("x"), new RegExp(`cannot connect to 127\\.0\\.0\\.1:${port}`));
  await assert.rejects(c2.watch("x"), HotKVConnectionError);
});
