import type { RedisClientType, RedisClientMultiCommandType } from "redis";
import type { ConnectionOptions as TlsConnectionOptions } from "node:tls";
import { WatchError, ErrorReply, MultiErrorReply } from "redis";

export { WatchError, ErrorReply, MultiErrorReply };

export interface HotKVOptions {
  /** hotkv://[user:pass@]host[:port][/db], also hotkvs://, redis://, rediss:// */
  url?: string;
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  db?: number;
  database?: number;
  /**
   * true for TLS, or tls.connect() options, which also turn TLS on:
   * { ca: readFileSync("ca.crt"), cert: readFileSync("client.crt"), key: readFileSync("client.key") }.
   * A hotkvs:// or rediss:// URL turns TLS on as well.
   */
  tls?: boolean | TlsConnectionOptions;
  /** ms, default 5000 */
  connectTimeout?: number;
}

export interface ParsedOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
  database?: number;
  tls: boolean | TlsConnectionOptions;
}

/** Raised when the server cannot be reached; the message names host:port. */
export class HotKVConnectionError extends Error {
  readonly host: string;
  readonly port: number;
}

type Client = RedisClientType;
type Multi = RedisClientMultiCommandType<any, any, any>;

/** Command methods of a node-redis multi, each queuing and returning the transaction. */
export type QueuedCommands = {
  [K in keyof Multi as Multi[K] extends (...args: any[]) => Multi ? K : never]: Multi[K] extends (
    ...args: infer A
  ) => Multi
    ? (...args: A) => Transaction
    : never;
};

export interface TransactionBase {
  /** Dedicated connection that holds the WATCH (null for multi()). */
  readonly connection: Client | null;
  /** Queue a raw command. */
  command(...args: Array<string | number>): Transaction;
  /** Replies in order (a failed command's slot holds an Error), or null when a watched key changed. */
  exec(): Promise<unknown[] | null>;
  /** Drop queued commands and the WATCH. */
  discard(): Promise<void>;
}

export type Transaction = TransactionBase & QueuedCommands;
export const Transaction: { new (...args: any[]): Transaction };

export interface ScriptOptions {
  keys?: Array<string>;
  arguments?: Array<string | number>;
}

export interface HotKVBase {
  readonly host: string;
  readonly port: number;
  /** The underlying node-redis client. */
  readonly redis: Client;
  connect(): Promise<this>;
  quit(): Promise<void>;
  disconnect(): Promise<void>;
  /** WATCH on a dedicated connection; the returned transaction's command methods queue. */
  watch(...keys: Array<string | string[]>): Promise<Transaction>;
  /** MULTI/EXEC without WATCH. */
  multi(): Transaction;
  /** Watch, run fn, EXEC; retry (maxRetries, default 5) when a watched key changed. */
  transaction(
    keys: string | string[],
    fn: (tx: Transaction) => void | Promise<void>,
    options?: { maxRetries?: number },
  ): Promise<unknown[]>;
  /** Run a Lua script with allow-key-locking via EVALSHA (SCRIPT LOAD on NOSCRIPT). */
  runScript<T = unknown>(script: string, options?: ScriptOptions): Promise<T>;
}

export type HotKV = HotKVBase & Omit<Client, keyof HotKVBase | "multi" | "watch">;
export const HotKV: { new (options?: HotKVOptions | string): HotKV };
export default HotKV;

/** key("user:42", "balance") === "{user:42}:balance" */
export function key(tag: string | number, ...parts: Array<string | number>): string;
/** Prepend "#!lua flags=allow-key-locking\n" when the script has no shebang. */
export function withKeyLocking(script: string): string;
export function parseOptions(options?: HotKVOptions): ParsedOptions;
