// The package's entry point for browsers (and any runtime without Node's
// modules): the generated types, method table, errors and client with the
// HTTP transport, which needs only `fetch`, `ReadableStream`, `TextDecoder`
// and `AbortSignal`. The stdio transport (a child process) and the
// `@a2a-js/sdk` interop are left out, so a bundler targeting the browser
// pulls in no Node module and no polyfill.
//
// Reached as `@cleveragents/contract/http`, or as `@cleveragents/contract`
// by a bundler that honours the `browser` export condition.

export * from "./gen/index.js";
export * from "./transport.js";
export { HttpTransport, type HttpBinding, type HttpTransportOptions } from "./http.js";
