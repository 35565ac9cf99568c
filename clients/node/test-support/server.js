// Test helper: build HotKV from the repository and run it on a free port.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function portIsFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

function waitForPort(port, proc, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (proc.exitCode !== null) return reject(new Error(`hotkv exited with code ${proc.exitCode}`));
      const sock = net.connect(port, "127.0.0.1");
      sock.once("connect", () => { sock.destroy(); resolve(); });
      sock.once("error", () => {
        sock.destroy();
        if (Date.now() > deadline) reject(new Error(`hotkv did not listen on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/**
 * Write a test CA and certificates (`go run ./internal/testcerts/gencerts DIR`) into a temp
 * dir. Returns { dir, caFile, certFile, keyFile, clientCertFile, clientKeyFile, read(name), remove() }.
 */
export function makeCerts() {
  const dir = mkdtempSync(path.join(tmpdir(), "hotkv-node-certs-"));
  execFileSync("go", ["run", "./internal/testcerts/gencerts", dir], { cwd: repoRoot, stdio: "inherit" });
  return {
    dir,
    caFile: path.join(dir, "ca.crt"),
    certFile: path.join(dir, "server.crt"),
    keyFile: path.join(dir, "server.key"),
    clientCertFile: path.join(dir, "client.crt"),
    clientKeyFile: path.join(dir, "client.key"),
    read: (name) => readFileSync(path.join(dir, name)),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Build the server into a temp dir, start it (on `port` or a free one) with the extra `args`.
 * Returns { port, url, stop }.
 */
export async function startServer({ port, args = [] } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "hotkv-node-"));
  const bin = path.join(dir, "hotkv");
  execFileSync("go", ["build", "-o", bin, "./cmd/hotkv"], { cwd: repoRoot, stdio: "inherit" });
  port ??= await freePort();
  const proc = spawn(bin, ["--port", String(port), "--save", "", "--dir", dir, ...args], { stdio: ["ignore", "ignore", "ignore"] });
  await waitForPort(port, proc);
  return {
    port,
    url: `hotkv://127.0.0.1:${port}`,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGTERM");
        const t = setTimeout(() => proc.kill("SIGKILL"), 3000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
