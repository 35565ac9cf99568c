// The Node.js example of /work/shared/spec/transactions.md, run verbatim.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient } from "redis";
import { startServer, portIsFree } from "../test-support/server.js";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, "..");
const fixture = path.join(pkg, "test-support", "spec-example.mjs");
const SPEC = "/work/shared/spec/transactions.md";

let server;
let port;
before(async () => {
  // The example hard-codes 127.0.0.1:6379; use that port when it is free.
  port = (await portIsFree(6379)) ? 6379 : undefined;
  server = await startServer({ port });
  port = server.port;
});
after(async () => { await server?.stop(); });

test("fixture is the spec's Node.js example, verbatim", { skip: !existsSync(SPEC) && "spec not present" }, () => {
  const spec = readFileSync(SPEC, "utf8");
  const start = spec.indexOf('import { HotKV } from "@hotkv/client";');
  const end = spec.indexOf("client.multi() starts a transaction without WATCH.");
  assert.ok(start >= 0 && end > start, "Node.js example found in the spec");
  assert.equal(readFileSync(fixture, "utf8").trim(), spec.slice(start, end).trim());
});

test("spec example runs and decrements stock:widget", async () => {
  let file = fixture;
  if (port !== 6379) {
    // 6379 is taken on this machine: run the same text with only the port changed.
    file = path.join(pkg, "test-support", `.spec-example-${port}.mjs`);
    writeFileSync(file, readFileSync(fixture, "utf8").replace("127.0.0.1:6379", `127.0.0.1:${port}`));
  }
  const probe = createClient({ url: `redis://127.0.0.1:${port}` });
  await probe.connect();
  try {
    await probe.set("stock:widget", "5");
    // The example leaves its client open, so exit once its module body has finished.
    const runner = `await import(${JSON.stringify(new URL("file://" + file).href)}); process.exit(0);`;
    await run(process.execPath, ["--input-type=module", "-e", runner], { cwd: pkg, timeout: 20000 });
    assert.equal(await probe.get("stock:widget"), "4");
  } finally {
    await probe.quit();
    if (file !== fixture) rmSync(file, { force: true });
  }
});
