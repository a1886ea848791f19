// What the browser tests serve and start: a bare page (of an origin other
// than the agent's) that loads the bundle of examples/browser-page.ts, and
// the agent with a config file listing that origin for CORS and the console
// turned on. Screenshots go under the workspace's target/ directory.

import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type ServerAgent } from "./agent.js";

/** The bundle test.sh builds of the example page (dist/browser/page.js). */
export const PAGE_BUNDLE = fileURLToPath(new URL("../browser/page.js", import.meta.url));

/** Where screenshots are written: target/browser-screenshots of the workspace. */
export const SCREENSHOTS = fileURLToPath(new URL("../../../../target/browser-screenshots/", import.meta.url));

/** A page server on a loopback port: its origin, and a way to stop it. */
export interface PageServer {
  readonly origin: string;
  stop(): Promise<void>;
}

/** Serves `/` (a bare page loading `/page.js`) and `/page.js` (the example's bundle). */
export async function servePage(): Promise<PageServer> {
  const bundle = await readFile(PAGE_BUNDLE);
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare page</title>' +
    '<script src="/page.js"></script></head><body><p>A bare page using @cleveragents/contract/http.</p></body></html>';
  const server: Server = createServer((request, response) => {
    if (request.url === "/page.js") {
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      response.end(bundle);
    } else if (request.url === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(html);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no page server address");
  return {
    origin: `http://127.0.0.1:${address.port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The agent with the console on and `origins` allowed for CORS. */
export async function startBrowserAgent(origins: readonly string[], extra: object = {}): Promise<ServerAgent> {
  const dir = await mkdtemp(join(tmpdir(), "cleveragents-browser-"));
  const config = join(dir, "config.json");
  await writeFile(config, JSON.stringify({ server: { http: { console: true }, cors: { allowed_origins: origins }, ...extra } }));
  const agent = await startServer(["--config", config]);
  return {
    url: agent.url,
    async stop() {
      await agent.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
