// Starts the real agent for the tests: a server on a loopback port (memory
// store) for the HTTP transports, a child over stdio for the stdio one, and
// a client of each kind. Every wait is bounded.

import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { after, before, describe } from "node:test";
import { createInterface } from "node:readline";
import { ExtensionClient, HttpTransport, StdioTransport, type HttpBinding } from "../src/index.js";

/** The agent executable (the test script sets it). */
export const AGENT = process.env["CLEVERAGENTS_AGENT"] ?? "cleveragents-agent";

/** The transports every scenario runs over. */
export const TRANSPORTS = ["JSONRPC", "HTTP+JSON", "stdio"] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/** A running server-mode agent. */
export interface ServerAgent {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts `cleveragents-agent --listen 127.0.0.1:0 --memory` (with `extraArgs`)
 * and waits (at most 30 s) for its address.
 */
export async function startServer(extraArgs: readonly string[] = []): Promise<ServerAgent> {
  const child: ChildProcess = spawn(AGENT, ["--listen", "127.0.0.1:0", "--memory", ...extraArgs], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the agent did not listen within 30 s")), 30_000);
    child.once("error", reject);
    child.once("close", (code) => reject(new Error(`the agent exited (${code}) before listening`)));
    if (child.stderr === null) throw new Error("no stderr");
    createInterface({ input: child.stderr }).on("line", (line) => {
      const found = /listening on (http:\/\/\S+)/.exec(line);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
  });
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A client of `kind`: over HTTP to `server`, or over stdio to a new agent. */
export async function openClient(kind: TransportKind, server: ServerAgent): Promise<ExtensionClient> {
  if (kind === "stdio") {
    const transport = await StdioTransport.spawn({
      command: AGENT,
      args: ["--stdio", "--memory"],
      stderr: "ignore",
      timeoutMs: 20_000,
    });
    return new ExtensionClient(transport);
  }
  const { transport } = await HttpTransport.fromAgentCard(server.url, kind satisfies HttpBinding, { timeoutMs: 20_000 });
  return new ExtensionClient(transport);
}

/** What a scenario gets: its client, the transport's name and unique names. */
export interface Context {
  client: ExtensionClient;
  kind: TransportKind;
  server: ServerAgent;
  /** A name unique to this run. */
  unique(prefix: string): string;
}

/**
 * Declares `body` once per transport, each in its own `describe` with one
 * server agent for the file and one client per transport.
 */
export function overEveryTransport(name: string, body: (context: () => Context, kind: TransportKind) => void): void {
  let server: ServerAgent | undefined;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });
  for (const kind of TRANSPORTS) {
    describe(`${name} over ${kind}`, () => {
      let context: Context | undefined;
      before(async () => {
        if (server === undefined) throw new Error("no server");
        const client = await openClient(kind, server);
        context = { client, kind, server, unique: (prefix) => `${prefix}-${randomUUID().slice(0, 8)}` };
      });
      after(async () => {
        await context?.client.close();
      });
      body(() => {
        if (context === undefined) throw new Error("the client is not open");
        return context;
      }, kind);
    });
  }
}

/** Waits for `check` to return a value (polling every 25 ms), at most `timeoutMs`. */
export async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every event of a stream, at most `limit` of them. */
export async function collect<T>(stream: AsyncIterable<T>, limit = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}
