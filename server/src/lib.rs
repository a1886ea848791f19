//! Transports for the contract (HTTP JSON-RPC + SSE, stdio NDJSON).
