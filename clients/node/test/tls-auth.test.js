// Connecting over TLS (CA + client certificate) and with a password.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { HotKV, HotKVConnectionError, ErrorReply, parseOptions } from "@hotkv/client";

const parseTls = (options) => parseOptions(options).tls;
import { startServer, makeCerts, freePort } from "../test-support/server.js";

let certs;
let tlsPort;
let tlsServer; // plain port + TLS port (tls-auth-clients yes, the default)
let authServer; // --requirepass s3cret
before(async () => {
  certs = makeCerts();
  tlsPort = await freePort();
  tlsServer = await startServer({
    args: [
      "--tls-port", String(tlsPort),
      "--tls-cert-file", certs.certFile,
      "--tls-key-file", certs.keyFile,
      "--tls-ca-cert-file", certs.caFile,
    ],
  });
  authServer = await startServer({ args: ["--requirepass", "s3cret"] });
});
after(async () => {
  await tlsServer?.stop();
  await authServer?.stop();
  certs?.remove();
});

function clientTls({ withClientCert = true } = {}) {
  const tls = { ca: certs.read("ca.crt") };
  if (withClientCert) {
    tls.cert = certs.read("client.crt");
    tls.key = certs.read("client.key");
  }
  return tls;
}

async function pingSetGet(client, key) {
  assert.equal(await client.ping(), "PONG");
  assert.equal(await client.set(key, `value-${key}`), "OK");
  assert.equal(await client.get(key), `value-${key}`);
}

test("TLS with a CA and a client certificate: PING, SET/GET", async () => {
  const client = new HotKV({ host: "127.0.0.1", port: tlsPort, tls: clientTls() });
  try {
    await pingSetGet(client, "tls:node");
  } finally {
    await client.quit();
  }
  const plain = new HotKV({ url: tlsServer.url });
  try {
    assert.equal(await plain.get("tls:node"), "value-tls:node");
  } finally {
    await plain.quit();
  }
});

test("hotkvs:// URL with tls.connect() options; transactions use TLS too", async () => {
  const client = new HotKV({ url: `hotkvs://localhost:${tlsPort}`, tls: clientTls() });
  try {
    await pingSetGet(client, "tls:node:url");
    const tx = await client.watch("tls:node:url"); // a dedicated connection, also over TLS
    tx.set("tls:node:url", "changed");
    assert.deepEqual(await tx.exec(), ["OK"]);
    assert.equal(await client.get("tls:node:url"), "changed");
  } finally {
    await client.quit();
  }
});

test("parseOptions keeps tls.connect() options", () => {
  const tls = { ca: "CA" };
  assert.equal(parseTls({ url: "hotkvs://h:1", tls }), tls);
  assert.equal(parseTls({ url: "hotkv://h:1", tls }), tls);
  assert.equal(parseTls({ url: "hotkvs://h:1" }), true);
  assert.equal(parseTls({ host: "h", tls }), tls);
});

test("TLS without a client certificate fails when tls-auth-clients is yes", async () => {
  const client = new HotKV({ host: "127.0.0.1", port: tlsPort, tls: clientTls({ withClientCert: false }) });
  try {
    await assert.rejects(
      async () => { await client.connect(); await client.ping(); },
      (err) => /certificate/i.test(`${err.message} ${err.cause?.message ?? ""} ${err.cause?.code ?? ""}`),
    );
  } finally {
    await client.disconnect().catch(() => {});
  }
});

test("TLS fails when the server's CA is not trusted", async () => {
  const client = new HotKV({ host: "127.0.0.1", port: tlsPort, tls: { cert: certs.read("client.crt"), key: certs.read("client.key") } });
  try {
    await assert.rejects(() => client.ping(), (err) => /SELF_SIGNED|UNABLE_TO|certificate/i.test(`${err.message} ${err.cause?.code ?? ""}`));
  } finally {
    await client.disconnect().catch(() => {});
  }
});

test("password: NOAUTH without it, WRONGPASS with a wrong one", async () => {
  const noPass = new HotKV({ host: "127.0.0.1", port: authServer.port });
  try {
    await assert.rejects(() => noPass.set("auth:node", "x"), (err) => err instanceof ErrorReply && err.message.startsWith("NOAUTH"));
  } finally {
    await noPass.disconnect().catch(() => {});
  }
  const wrong = new HotKV({ host: "127.0.0.1", port: authServer.port, password: "wrong" });
  try {
    await assert.rejects(() => wrong.ping(), (err) => err instanceof HotKVConnectionError && /WRONGPASS/.test(err.message));
  } finally {
    await wrong.disconnect().catch(() => {});
  }
});

test("password alone, user default with the password, and in the URL", async () => {
  for (const [name, options] of [
    ["password", { host: "127.0.0.1", port: authServer.port, password: "s3cret" }],
    ["user", { host: "127.0.0.1", port: authServer.port, username: "default", password: "s3cret" }],
    ["url", { url: `hotkv://default:s3cret@127.0.0.1:${authServer.port}` }],
  ]) {
    const client = new HotKV(options);
    try {
      await pingSetGet(client, `auth:node:${name}`);
    } finally {
      await client.quit();
    }
  }
});
