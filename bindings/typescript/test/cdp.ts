// Headless Chromium for the browser tests, driven through the DevTools
// protocol over a pipe (`--remote-debugging-pipe`: NUL-terminated JSON on
// file descriptors 3 and 4), so no port, no WebSocket and no driver package
// is needed. Every wait is on a condition, bounded generously; none sleeps.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable, Writable } from "node:stream";

/** The Chromium executable (Debian's `chromium`; `CHROMIUM` overrides it). */
export const CHROMIUM = process.env["CHROMIUM"] ?? "chromium";

/** The bound on any one wait: long, since the machine may be busy. */
export const WAIT_MS = 60_000;

type Json = { [key: string]: unknown };

interface Pending {
  resolve(value: Json): void;
  reject(error: Error): void;
}

interface Waiter {
  method: string;
  sessionId: string | undefined;
  resolve(params: Json): void;
}

/** A running headless Chromium. */
export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private waiters: Waiter[] = [];
  /** Page errors and console lines, to explain a failure. */
  readonly log: string[] = [];
  /** `METHOD url` of every request each page (by session) sent, preflights included. */
  readonly requests = new Map<string, string[]>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly input: Writable,
    output: Readable,
    private readonly profile: string,
  ) {
    let buffer = Buffer.alloc(0);
    output.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      let end: number;
      while ((end = buffer.indexOf(0)) >= 0) {
        const text = buffer.subarray(0, end).toString("utf8");
        buffer = buffer.subarray(end + 1);
        this.receive(JSON.parse(text) as Json);
      }
    });
    child.once("close", () => {
      for (const p of this.pending.values()) p.reject(new Error("chromium exited"));
      this.pending.clear();
    });
  }

  /** Starts Chromium headless with a throwaway profile. */
  static async launch(): Promise<Browser> {
    const profile = await mkdtemp(join(tmpdir(), "cleveragents-chromium-"));
    const child = spawn(
      CHROMIUM,
      [
        "--headless=new",
        "--remote-debugging-pipe",
        `--user-data-dir=${profile}`,
        // Root in a container has no user namespace for the sandbox.
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--hide-scrollbars",
        "about:blank",
      ],
      { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] },
    );
    const input = child.stdio[3] as Writable | null;
    const output = child.stdio[4] as Readable | null;
    if (input === null || output === null) throw new Error("chromium: no DevTools pipe");
    const browser = new Browser(child, input, output, profile);
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) => reject(new Error(`cannot start ${CHROMIUM} (scripts/chromium installs it): ${error.message}`)));
    });
    await browser.send("Target.setDiscoverTargets", { discover: true });
    return browser;
  }

  private receive(message: Json): void {
    if (typeof message["id"] === "number") {
      const pending = this.pending.get(message["id"]);
      this.pending.delete(message["id"]);
      const error = message["error"] as { message?: string } | undefined;
      if (error !== undefined) pending?.reject(new Error(`DevTools: ${error.message ?? JSON.stringify(error)}`));
      else pending?.resolve((message["result"] ?? {}) as Json);
      return;
    }
    const method = String(message["method"]);
    const params = (message["params"] ?? {}) as Json;
    const sessionId = message["sessionId"] as string | undefined;
    if (method === "Network.requestWillBeSent" && sessionId !== undefined) {
      const request = params["request"] as { method: string; url: string };
      const list = this.requests.get(sessionId) ?? [];
      list.push(`${request.method} ${request.url}`);
      this.requests.set(sessionId, list);
    } else if (method === "Runtime.exceptionThrown") {
      const details = params["exceptionDetails"] as { exception?: { description?: string }; text?: string };
      this.log.push(`exception: ${details.exception?.description ?? details.text ?? ""}`);
    } else if (method === "Log.entryAdded") {
      const entry = params["entry"] as { level?: string; text?: string; url?: string };
      this.log.push(`${entry.level ?? "log"}: ${entry.text ?? ""} ${entry.url ?? ""}`);
    } else if (method === "Runtime.consoleAPICalled") {
      const args = (params["args"] as { value?: unknown; description?: string }[]).map((a) => a.value ?? a.description);
      this.log.push(`console.${String(params["type"])}: ${args.join(" ")}`);
    }
    const matched = this.waiters.filter((w) => w.method === method && (w.sessionId === undefined || w.sessionId === sessionId));
    this.waiters = this.waiters.filter((w) => !matched.includes(w));
    for (const w of matched) w.resolve(params);
  }

  /** One DevTools command, to the browser or to a page's session. */
  send(method: string, params: Json = {}, sessionId?: string): Promise<Json> {
    const id = this.nextId++;
    const message: Json = { id, method, params };
    if (sessionId !== undefined) message["sessionId"] = sessionId;
    return new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`DevTools: no answer to ${method} within ${WAIT_MS} ms`));
      }, WAIT_MS);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.input.write(`${JSON.stringify(message)}\0`);
    });
  }

  /** The next event `method` (of `sessionId`), registered before the action that causes it. */
  next(method: string, sessionId?: string): Promise<Json> {
    return new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`DevTools: no ${method} within ${WAIT_MS} ms`)), WAIT_MS);
      this.waiters.push({ method, sessionId, resolve: (p) => (clearTimeout(timer), resolve(p)) });
    });
  }

  /** A new tab, `width`×`height` CSS pixels. */
  async newPage(width = 1280, height = 800): Promise<Page> {
    const { targetId } = (await this.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
    const { sessionId } = (await this.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
    const page = new Page(this, sessionId);
    await this.send("Page.enable", {}, sessionId);
    await this.send("Runtime.enable", {}, sessionId);
    await this.send("Log.enable", {}, sessionId);
    await this.send("Network.enable", {}, sessionId);
    await page.resize(width, height);
    return page;
  }

  /** Stops Chromium and removes its profile. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once("close", () => resolve());
    });
    await this.send("Browser.close").catch(() => undefined);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await closed;
    clearTimeout(timer);
    await rm(this.profile, { recursive: true, force: true });
  }
}

/** One tab. */
export class Page {
  constructor(
    readonly browser: Browser,
    readonly sessionId: string,
  ) {}

  private send(method: string, params: Json = {}): Promise<Json> {
    return this.browser.send(method, params, this.sessionId);
  }

  /** `METHOD url` of every request this page sent so far, CORS preflights included. */
  get requests(): readonly string[] {
    return this.browser.requests.get(this.sessionId) ?? [];
  }

  /** Sets the viewport's size in CSS pixels. */
  async resize(width: number, height: number): Promise<void> {
    await this.send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
  }

  /** Opens `url` and waits for its load event. */
  async goto(url: string): Promise<void> {
    const loaded = this.browser.next("Page.loadEventFired", this.sessionId);
    const result = (await this.send("Page.navigate", { url })) as { errorText?: string };
    if (result.errorText !== undefined) throw new Error(`navigating to ${url}: ${result.errorText}`);
    await loaded;
  }

  /** The value of `expression` in the page (a promise is awaited); a thrown error rejects. */
  async evaluate<T>(expression: string): Promise<T> {
    const result = (await this.send("Runtime.evaluate", {
      expression,
      awaitPromise: true,
      returnByValue: true,
      userGesture: true,
    })) as { result: { value?: unknown }; exceptionDetails?: { exception?: { description?: string }; text?: string } };
    if (result.exceptionDetails !== undefined) {
      const d = result.exceptionDetails;
      throw new Error(`in the page: ${d.exception?.description ?? d.text ?? "exception"}\npage log:\n${this.browser.log.join("\n")}`);
    }
    return result.result.value as T;
  }

  /**
   * Waits until `expression` is truthy in the page, and returns its value:
   * checked again after each animation frame, within a generous bound.
   */
  async waitFor<T>(expression: string, what: string): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const value = await this.evaluate<T>(`(async () => { try { return (${expression}); } catch { return undefined; } })()`);
      if (value) return value;
      if (Date.now() > deadline) {
        throw new Error(`waited ${WAIT_MS} ms for ${what}; page log:\n${this.browser.log.join("\n")}`);
      }
      await this.evaluate("new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)))");
    }
  }

  /** Types one key (`Enter`, `Tab`, `Escape`, arrows) or character into the focused element. */
  async press(key: string): Promise<void> {
    const named: { [key: string]: { code: string; keyCode: number } } = {
      Enter: { code: "Enter", keyCode: 13 },
      Tab: { code: "Tab", keyCode: 9 },
      Escape: { code: "Escape", keyCode: 27 },
      ArrowRight: { code: "ArrowRight", keyCode: 39 },
      ArrowLeft: { code: "ArrowLeft", keyCode: 37 },
    };
    const info = named[key];
    const base = info === undefined ? { key, text: key } : { key, code: info.code, windowsVirtualKeyCode: info.keyCode, ...(key === "Enter" ? { text: "\r" } : {}) };
    await this.send("Input.dispatchKeyEvent", { type: info === undefined ? "keyDown" : "rawKeyDown", ...base });
    if (key === "Enter") await this.send("Input.dispatchKeyEvent", { type: "char", ...base });
    await this.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
  }

  /** Inserts `text` into the focused element, as typing would. */
  async type(text: string): Promise<void> {
    await this.send("Input.insertText", { text });
  }

  /** Writes a PNG of the viewport to `path`. */
  async screenshot(path: string): Promise<void> {
    const { data } = (await this.send("Page.captureScreenshot", { format: "png" })) as { data: string };
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, Buffer.from(data, "base64"));
  }
}
