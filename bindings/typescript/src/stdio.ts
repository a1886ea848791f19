// The stdio transport: spawns the agent (`cleveragents-agent --stdio`) and
// speaks newline-delimited JSON-RPC 2.0 with it, as its stdio binding
// defines: `initialize` first, calls matched to answers by id, a stream's
// events as `stream/event` notifications ended by the ordinary response,
// `stream/cancel` when the caller stops early and `stream/resume` to continue
// after the last event seen (the stdio form of SSE `Last-Event-ID`).

import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { createInterface } from "node:readline";
import { A2A_PROTOCOL_VERSION, EXTENSION_URI, type ExtensionVersion } from "./gen/contract.js";
import { BINDING_METHODS } from "./gen/methods.js";
import type {
  StdioImplementationInfo,
  StdioInitializeParams,
  StdioInitializeResult,
  StdioStreamEventParams,
  StdioStreamResumeParams,
} from "./gen/types.js";
import { TransportError, type CallOptions, type StreamEvent, type StreamOptions, type Transport } from "./transport.js";
import { errorOfJsonRpc, position, request } from "./wire.js";

/** How to start the agent and what to negotiate with it. */
export interface StdioTransportOptions {
  /** The agent executable (`$CLEVERAGENTS_AGENT`, else `cleveragents-agent` on the PATH). */
  command?: string | undefined;
  /** Its arguments (`--stdio`; add `--memory` or `--data-dir DIR` as needed). */
  args?: readonly string[] | undefined;
  /** The extension minor version wanted; the newest when absent. */
  extensionVersion?: ExtensionVersion | undefined;
  /** The client reported in `initialize`. */
  clientInfo?: StdioImplementationInfo | undefined;
  /** Bound on the handshake and on each unary call, in milliseconds (30 s when absent). */
  timeoutMs?: number | undefined;
  /** How long `close` waits for the agent to exit after closing its stdin before killing it (5 s when absent). */
  shutdownGraceMs?: number | undefined;
  /** Where the agent's stderr goes (this process's stderr when absent). */
  stderr?: "inherit" | "ignore" | undefined;
  /** Environment and working directory of the agent. */
  env?: NodeJS.ProcessEnv | undefined;
  cwd?: string | undefined;
}

type Waiter =
  | { kind: "unary"; resolve: (value: unknown) => void; reject: (error: Error) => void }
  | { kind: "stream"; push: (item: StreamItem) => void };

type StreamItem = { event: StreamEvent<unknown> } | { end: true } | { error: Error };

/** A session with a spawned agent over its stdio binding. */
export class StdioTransport implements Transport {
  /** What `initialize` answered: the protocol version, the activated extensions, the Agent Card. */
  session!: StdioInitializeResult;
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly options: StdioTransportOptions;
  private readonly pending = new Map<number, Waiter>();
  private nextId = 1;
  private exited: Error | undefined;
  private readonly exit: Promise<void>;

  private constructor(child: ChildProcessByStdio<Writable, Readable, null>, options: StdioTransportOptions) {
    this.child = child;
    this.options = options;
    this.exit = new Promise((resolve) => child.once("close", () => resolve()));
    child.stdin.on("error", () => undefined);
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => this.route(line));
    child.once("close", (code, signal) => this.fail(new TransportError(`the agent exited (${signal ?? code})`)));
    child.once("error", (error) => this.fail(new TransportError(`the agent failed: ${error.message}`, { cause: error })));
  }

  /** The agent's process id (while it runs). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Spawns the agent and performs the `initialize` handshake. */
  static async spawn(options: StdioTransportOptions = {}): Promise<StdioTransport> {
    const command = options.command ?? process.env["CLEVERAGENTS_AGENT"] ?? "cleveragents-agent";
    const child = spawn(command, [...(options.args ?? ["--stdio"])], {
      stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    const transport = new StdioTransport(child, options);
    const params: StdioInitializeParams = {
      protocolVersion: A2A_PROTOCOL_VERSION,
      extensions: [
        options.extensionVersion === undefined
          ? { uri: EXTENSION_URI }
          : { uri: EXTENSION_URI, version: options.extensionVersion },
      ],
      clientInfo: options.clientInfo ?? { name: "cleveragents-typescript", version: "0.1.0" },
    };
    try {
      transport.session = (await transport.call(BINDING_METHODS.initialize.name, params)) as StdioInitializeResult;
    } catch (error) {
      child.kill();
      throw error;
    }
    return transport;
  }

  /** Ends every waiter: the agent will answer no more. */
  private fail(error: Error): void {
    this.exited ??= error;
    for (const waiter of this.pending.values()) {
      if (waiter.kind === "unary") waiter.reject(error);
      else waiter.push({ error });
    }
    this.pending.clear();
  }

  /** Routes one line of the agent's stdout to whoever waits for it. */
  private route(line: string): void {
    if (line.trim() === "") return;
    let message: { [key: string]: unknown };
    try {
      message = JSON.parse(line) as { [key: string]: unknown };
    } catch {
      // stdout carries protocol only: a line that is not JSON is a broken agent's; skipped.
      return;
    }
    if (message["method"] === BINDING_METHODS.streamEvent.name) {
      const params = message["params"] as StdioStreamEventParams | undefined;
      const id = position(params?.requestId);
      const waiter = id === undefined ? undefined : this.pending.get(id);
      if (params !== undefined && waiter?.kind === "stream") {
        // The producer's number (a task's sequence, a namespace cursor) is the resume position.
        waiter.push({ event: { data: params.event, id: params.taskSeq } });
      }
      return;
    }
    if ("method" in message) return; // no other notification or request is defined
    const id = position(message["id"]);
    const waiter = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || waiter === undefined) return;
    this.pending.delete(id);
    if (waiter.kind === "unary") {
      if ("error" in message) waiter.reject(errorOfJsonRpc(message["error"]));
      else waiter.resolve(message["result"]);
    } else {
      // The ordinary response ends the stream; only an error is news.
      waiter.push("error" in message ? { error: errorOfJsonRpc(message["error"]) } : { end: true });
    }
  }

  private write(id: number, method: string, params: object): void {
    if (this.exited !== undefined) throw this.exited;
    if (!this.child.stdin.writable) throw new TransportError("the agent session is closed");
    this.child.stdin.write(`${request(id, method, params)}\n`);
  }

  call(method: string, params: object, options: CallOptions = {}): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
      const finish = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new TransportError(`no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = (): void => {
        finish();
        reject(new TransportError(`${method} aborted`, { cause: options.signal?.reason }));
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        kind: "unary",
        resolve: (value) => (finish(), resolve(value)),
        reject: (error) => (finish(), reject(error)),
      });
      try {
        this.write(id, method, params);
      } catch (error) {
        finish();
        reject(error instanceof Error ? error : new TransportError(String(error)));
      }
    });
  }

  async *stream(method: string, params: object, options: StreamOptions = {}): AsyncGenerator<StreamEvent<unknown>> {
    const id = this.nextId++;
    const queue: StreamItem[] = [];
    let wake: (() => void) | undefined;
    const push = (item: StreamItem): void => {
      queue.push(item);
      wake?.();
    };
    const onAbort = (): void => push({ error: new TransportError(`${method} aborted`, { cause: options.signal?.reason }) });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    this.pending.set(id, { kind: "stream", push });
    let ended = false;
    try {
      if (options.lastEventId === undefined) {
        this.write(id, method, params);
      } else {
        const resume: StdioStreamResumeParams = {
          method,
          params: params as StdioStreamResumeParams["params"],
          lastEventId: options.lastEventId,
        };
        this.write(id, BINDING_METHODS.streamResume.name, resume);
      }
      for (;;) {
        const item = queue.shift();
        if (item === undefined) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        if ("end" in item) {
          ended = true;
          return;
        }
        if ("error" in item) {
          ended = true;
          throw item.error;
        }
        yield item.event;
      }
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      // Stopped before its response: the agent stops sending (best effort, not awaited).
      if (!ended && this.pending.delete(id) && this.exited === undefined) {
        try {
          this.write(this.nextId++, BINDING_METHODS.streamCancel.name, { requestId: id });
        } catch {
          // The session is closing: nothing more will be sent anyway.
        }
      }
      this.pending.delete(id);
    }
  }

  /** Closes the agent's stdin (a clean end of the session), then kills it after the grace period. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const grace = this.options.shutdownGraceMs ?? 5_000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), grace)));
    if ((await Promise.race([this.exit.then(() => "exited" as const), late])) === "late") {
      this.child.kill("SIGKILL");
      await this.exit;
    }
    clearTimeout(timer);
  }
}
