// The package's entry point: the generated types, method table, errors and
// client, with the transports that carry the calls.

export * from "./gen/index.js";
export * from "./transport.js";
export { HttpTransport, type HttpBinding, type HttpTransportOptions } from "./http.js";
export { StdioTransport, type StdioTransportOptions } from "./stdio.js";
export * from "./sdk.js";
