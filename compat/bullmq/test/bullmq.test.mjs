// BullMQ, unchanged, against HotKV: queues, workers, priorities, delays,
// retries with backoff, flows, progress, pausing, and QueueEvents (which
// reads a stream with XREAD BLOCK). BullMQ runs all of it through Lua
// scripts that touch keys they build themselves, so HotKV runs them under
// its global lock, as Redis runs every script.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Queue, Worker, QueueEvents, FlowProducer } from "bullmq";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
let server;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, proc) {
  for (const deadline = Date.now() + 15000; Date.now() < deadline; ) {
    if (proc.exitCode !== null) throw new Error(`hotkv exited with code ${proc.exitCode}`);
    const ok = await new Promise((resolve) => {
      const sock = net.connect(port, "127.0.0.1");
      sock.once("connect", () => { sock.destroy(); resolve(true); });
      sock.once("error", () => { sock.destroy(); resolve(false); });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`hotkv did not listen on ${port}`);
}

before(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "hotkv-bullmq-"));
  let bin = process.env.HOTKV_BINARY;
  if (!bin) {
    bin = path.join(dir, "hotkv");
    execFileSync("go", ["build", "-o", bin, "./cmd/hotkv"], { cwd: repoRoot, stdio: "inherit" });
  }
  const port = await freePort();
  const proc = spawn(bin, ["--port", String(port), "--save", "", "--dir", dir], { stdio: "ignore" });
  await waitForPort(port, proc);
  server = {
    connection: { host: "127.0.0.1", port, maxRetriesPerRequest: null },
    stop() { proc.kill("SIGTERM"); rmSync(dir, { recursive: true, force: true }); },
  };
});

after(() => server?.stop());

/** Resolves once `n` jobs of the queue have completed, per QueueEvents. */
function completions(events, n, ms = 20000) {
  return new Promise((resolve, reject) => {
    const seen = [];
    const timer = setTimeout(() => reject(new Error(`timeout: ${seen.length} of ${n} completed`)), ms);
    events.on("completed", ({ jobId, returnvalue }) => {
      seen.push({ jobId, returnvalue });
      if (seen.length === n) { clearTimeout(timer); resolve(seen); }
    });
  });
}

test("jobs of every kind are processed exactly once", async () => {
  const { connection } = server;
  const name = "all-kinds";
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  await events.waitUntilReady();
  const N = 200;
  const done = completions(events, N + 3);
  const runs = new Map();
  const worker = new Worker(name, async (job) => {
    runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
    if (job.name === "flaky" && job.attemptsMade === 0) throw new Error("first try fails");
    await job.updateProgress(50);
    return job.data.n * 2;
  }, { connection, concurrency: 8 });
  for (let i = 0; i < N; i++) {
    await queue.add("double", { n: i }, i % 3 === 0 ? { priority: 1 + (i % 5) } : {});
  }
  const delayed = await queue.add("delayed", { n: 1 }, { delay: 300 });
  const flaky = await queue.add("flaky", { n: 2 }, { attempts: 3, backoff: { type: "fixed", delay: 50 } });
  const flow = new FlowProducer({ connection });
  const tree = await flow.add({
    name: "parent", queueName: name, data: { n: 3 },
    children: [{ name: "child", queueName: name + "-children", data: { n: 4 } }],
  });
  const childWorker = new Worker(name + "-children", async (job) => job.data.n, { connection });

  const results = await done;
  assert.equal(new Set(results.map((r) => r.jobId)).size, N + 3, "each job completes once");
  assert.equal(Number((await queue.getJob(delayed.id)).returnvalue), 2);
  assert.equal(runs.get(flaky.id), 2, "the flaky job ran twice");
  const parent = await queue.getJob(tree.job.id);
  assert.equal(parent.returnvalue, 6);
  assert.deepEqual(Object.values(await parent.getChildrenValues()), [4]);
  const { completed, failed, waiting, active, delayed: later } = await queue.getJobCounts();
  assert.deepEqual({ completed, failed, waiting, active, later }, { completed: N + 3, failed: 0, waiting: 0, active: 0, later: 0 });

  await Promise.all([worker.close(), childWorker.close(), events.close(), flow.close()]);
  await queue.obliterate({ force: true });
  await queue.close();
});

test("a paused queue holds its jobs until resumed; a failing job ends failed", async () => {
  const { connection } = server;
  const name = "pause";
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  await events.waitUntilReady();
  await queue.pause();
  await queue.add("a", { n: 1 });
  const failed = new Promise((resolve) => events.on("failed", ({ failedReason }) => resolve(failedReason)));
  const worker = new Worker(name, async (job) => {
    if (job.name === "bad") throw new Error("always fails");
    return "ok";
  }, { connection });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await queue.getWaitingCount(), 1, "nothing runs while paused");
  const done = completions(events, 1);
  await queue.resume();
  await done;
  await queue.add("bad", {}, { attempts: 1 });
  assert.equal(await failed, "always fails");
  assert.equal(await queue.getFailedCount(), 1);
  await Promise.all([worker.close(), events.close()]);
  await queue.obliterate({ force: true });
  await queue.close();
});
