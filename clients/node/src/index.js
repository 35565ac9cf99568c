// @hotkv/client: a thin layer over node-redis v4 for HotKV.
import { createHash } from "node:crypto";
import { createClient, WatchError, ErrorReply, MultiErrorReply } from "redis";

export { WatchError, ErrorReply, MultiErrorReply };

const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_PORT = 6379;
const POOL_MAX = 8;

/** Error raised when a HotKV server cannot be reached. Names host:port. */
export class HotKVConnectionError extends Error {
  constructor(host, port, cause) {
    const reason = cause && (cause.code || cause.message) ? `: ${cause.code || cause.message}` : "";
    super(`HotKV: cannot connect to ${host}:${port}${reason}`, { cause });
    this.name = "HotKVConnectionError";
    this.host = host;
    this.port = port;
  }
}

/** Build a key that carries the hash tag `tag`: key("user:42", "balance") === "{user:42}:balance". */
export function key(tag, ...parts) {
  tag = String(tag);
  if (tag === "") throw new TypeError("key(): the hash tag must not be empty");
  if (tag.includes("}")) throw new TypeError("key(): the hash tag must not contain '}'");
  return [`{${tag}}`, ...parts.map(String)].join(":");
}

/** Prepend `#!lua flags=allow-key-locking` to a script that has no shebang line. */
export function withKeyLocking(script) {
  return script.startsWith("#!") ? script : `#!lua flags=allow-key-locking\n${script}`;
}

/**
 * Parse hotkv://, hotkvs://, redis:// or rediss:// URLs (and host/port options).
 * `tls` is true, false, or an object of tls.connect() options (ca, cert, key,
 * servername, ...), which turns TLS on; a hotkvs:// or rediss:// URL turns it on too.
 */
export function parseOptions(options = {}) {
  let host = options.host ?? DEFAULT_HOST;
  let port = options.port ?? DEFAULT_PORT;
  let username = options.username;
  let password = options.password;
  let database = options.db ?? options.database;
  let tls = options.tls ?? false;
  if (options.url) {
    let u;
    try {
      u = new URL(options.url);
    } catch {
      throw new TypeError(`HotKV: invalid URL ${JSON.stringify(options.url)}`);
    }
    const scheme = u.protocol.replace(/:$/, "");
    if (!["hotkv", "hotkvs", "redis", "rediss"].includes(scheme)) {
      throw new TypeError(`HotKV: unsupported URL scheme ${JSON.stringify(scheme + "://")} (use hotkv:// or redis://)`);
    }
    // A TLS scheme turns TLS on; options.tls (true or tls.connect() options) may turn it on too.
    tls = options.tls || scheme === "hotkvs" || scheme === "rediss";
    if (u.hostname) host = u.hostname.replace(/^\[(.*)\]$/, "$1");
    if (u.port) port = Number(u.port);
    if (u.username) username = decodeURIComponent(u.username);
    if (u.password) password = decodeURIComponent(u.password);
    const path = u.pathname.replace(/^\//, "");
    if (path) database = Number(path);
    // Explicit options override what the URL says.
    if (options.host) host = options.host;
    if (options.port) port = options.port;
    if (options.username) username = options.username;
    if (options.password) password = options.password;
  }
  port = Number(port);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new TypeError(`HotKV: invalid port ${port}`);
  return { host, port, username, password, database, tls };
}

function isNoScript(err) {
  return err && typeof err.message === "string" && err.message.startsWith("NOSCRIPT");
}

/**
 * A queued transaction (MULTI/EXEC). Command methods queue and return the
 * transaction; exec() resolves to the replies, or null when a watched key changed.
 */
export class Transaction {
  #multi;
  #release;
  #done = false;
  #self;
  constructor(multi, connection, release) {
    this.#multi = multi;
    this.#release = release;
    /** The dedicated node-redis connection holding the WATCH (null for multi()). */
    this.connection = connection ?? null;
    this.#self = new Proxy(this, {
      get(target, prop, receiver) {
        if (prop in target || typeof prop === "symbol" || prop === "then") {
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        }
        const fn = target.#multi[prop];
        if (typeof fn !== "function") return fn;
        return (...args) => {
          if (target.#done) throw new Error("HotKV: transaction already finished");
          fn.apply(target.#multi, args);
          return receiver;
        };
      },
    });
    return this.#self;
  }

  /** Queue a raw command, e.g. tx.command("INCRBY", "k", "2"). */
  command(...args) {
    if (this.#done) throw new Error("HotKV: transaction already finished");
    this.#multi.addCommand(args.map(String));
    return this.#self;
  }

  /** Run the queued commands. Resolves to the replies, or null if a watched key changed. */
  async exec() {
    if (this.#done) throw new Error("HotKV: transaction already finished");
    this.#done = true;
    try {
      return await this.#multi.exec();
    } catch (err) {
      if (err instanceof WatchError) return null;
      // A command that failed while running keeps its error in its slot (no rollback).
      if (err instanceof MultiErrorReply && Array.isArray(err.replies)) return err.replies;
      throw err;
    } finally {
      await this.#release?.(false);
    }
  }

  /** Drop the queued commands and the WATCH without running anything. */
  async discard() {
    if (this.#done) return;
    this.#done = true;
    await this.#release?.(true);
  }
}

/** HotKV client. Every node-redis command method is available (client.get, client.hSet, ...). */
export class HotKV {
  #opts;
  #client;
  #connecting = null;
  #everConnected = false;
  #closed = false;
  #idle = [];
  #all = new Set();

  constructor(options = {}) {
    if (typeof options === "string") options = { url: options };
    this.#opts = { ...parseOptions(options), connectTimeout: options.connectTimeout ?? 5000 };
    this.#client = this.#newClient();
    return new Proxy(this, {
      get(target, prop) {
        if (prop in target || typeof prop === "symbol" || prop === "then") {
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        }
        const client = target.#client;
        const value = client[prop];
        if (typeof value !== "function") return value;
        if (prop === "on" || prop === "once" || prop === "off" || prop === "removeListener" || prop === "duplicate") {
          return value.bind(client);
        }
        return (...args) => {
          if (client.isReady || target.#everConnected) return value.apply(client, args);
          return target.#ready().then(() => value.apply(client, args));
        };
      },
    });
  }

  get host() { return this.#opts.host; }
  get port() { return this.#opts.port; }
  /** The underlying node-redis client. */
  get redis() { return this.#client; }

  #newClient() {
    const { host, port, username, password, database, tls, connectTimeout } = this.#opts;
    let ready = false;
    const client = createClient({
      socket: {
        // tls.connect() options (ca, cert, key, ...) when tls is an object.
        ...(tls && typeof tls === "object" ? tls : {}),
        host, port, tls: Boolean(tls), connectTimeout,
        // Fail the first connect clearly; once connected, reconnect with backoff.
        reconnectStrategy: (retries, cause) =>
          ready ? Math.min(50 * (retries + 1), 2000) : new HotKVConnectionError(host, port, cause),
      },
      username, password, database,
    });
    client.on("ready", () => { ready = true; });
    client.on("error", () => {}); // surfaced through connect()/command rejections
    return client;
  }

  async #open(client) {
    try {
      await client.connect();
    } catch (err) {
      if (err instanceof HotKVConnectionError) throw err;
      if (err?.originalError instanceof HotKVConnectionError) throw err.originalError;
      throw new HotKVConnectionError(this.#opts.host, this.#opts.port, err);
    }
    return client;
  }

  #ready() {
    if (this.#client.isReady) return Promise.resolve();
    if (this.#closed) return Promise.reject(new Error("HotKV: client is closed"));
    if (!this.#connecting) {
      this.#connecting = this.#open(this.#client).then(
        () => { this.#everConnected = true; },
        (err) => { this.#connecting = null; throw err; },
      );
    }
    return this.#connecting;
  }

  /** Connect (commands also connect on first use). */
  async connect() {
    this.#closed = false;
    await this.#ready();
    return this;
  }

  /** Close this client and its dedicated transaction connections. */
  async quit() {
    this.#closed = true;
    const conns = [...this.#all];
    this.#all.clear();
    this.#idle = [];
    await Promise.all(conns.map((c) => c.quit().catch(() => c.disconnect().catch(() => {}))));
    if (this.#client.isOpen) await this.#client.quit();
  }

  async disconnect() {
    this.#closed = true;
    for (const c of this.#all) await c.disconnect().catch(() => {});
    this.#all.clear();
    this.#idle = [];
    if (this.#client.isOpen) await this.#client.disconnect();
  }

  async #acquire() {
    if (this.#closed) throw new Error("HotKV: client is closed");
    while (this.#idle.length) {
      const c = this.#idle.pop();
      if (c.isReady) return c;
      this.#all.delete(c);
      c.disconnect().catch(() => {});
    }
    const c = this.#newClient();
    await this.#open(c);
    this.#all.add(c);
    return c;
  }

  async #releaseConn(c, unwatch) {
    try {
      if (unwatch && c.isReady) await c.unwatch();
    } catch {
      /* fall through to dropping the connection */
    }
    if (!this.#closed && c.isReady && this.#idle.length < POOL_MAX) {
      this.#idle.push(c);
    } else {
      this.#all.delete(c);
      await c.quit().catch(() => {});
    }
  }

  /**
   * WATCH keys on a dedicated connection; resolves to a Transaction whose command
   * methods queue. exec() resolves to null when a watched key changed.
   */
  async watch(...keys) {
    keys = keys.flat();
    if (keys.length === 0) throw new TypeError("watch(): at least one key is required");
    await this.#ready();
    const conn = await this.#acquire();
    try {
      await conn.watch(keys);
    } catch (err) {
      await this.#releaseConn(conn, true);
      throw err;
    }
    return new Transaction(conn.multi(), conn, (unwatch) => this.#releaseConn(conn, unwatch));
  }

  /** MULTI/EXEC without WATCH. Command methods queue; exec() sends the whole block at once. */
  multi() {
    const client = this.#client;
    const multi = client.multi();
    const origExec = multi.exec.bind(multi);
    multi.exec = async (...a) => { await this.#ready(); return origExec(...a); };
    return new Transaction(multi, null, null);
  }

  /**
   * Watch `keys`, call `fn(tx)` (read, then queue writes on tx), EXEC; retry up to
   * maxRetries times when a watched key changed. Resolves to the EXEC replies.
   */
  async transaction(keys, fn, { maxRetries = 5 } = {}) {
    keys = [keys].flat();
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      const tx = await this.watch(...keys);
      try {
        await fn(tx);
      } catch (err) {
        await tx.discard();
        throw err;
      }
      const res = await tx.exec();
      if (res !== null) return res;
    }
    throw new WatchError(`HotKV: watched keys kept changing after ${maxRetries + 1} attempts`);
  }

  /**
   * Run a Lua script with key-based locking (adds `#!lua flags=allow-key-locking`
   * unless the script has its own shebang), via EVALSHA with SCRIPT LOAD on NOSCRIPT.
   */
  async runScript(script, { keys = [], arguments: args = [] } = {}) {
    await this.#ready();
    const body = withKeyLocking(script);
    const sha = createHash("sha1").update(body).digest("hex");
    const tail = [String(keys.length), ...keys.map(String), ...args.map(String)];
    try {
      return await this.#client.sendCommand(["EVALSHA", sha, ...tail]);
    } catch (err) {
      if (!isNoScript(err)) throw err;
    }
    await this.#client.sendCommand(["SCRIPT", "LOAD", body]);
    return await this.#client.sendCommand(["EVALSHA", sha, ...tail]);
  }
}

export default HotKV;
