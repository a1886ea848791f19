#!/usr/bin/env bash
# Interop check: the official A2A JavaScript SDK client (@a2a-js/sdk from npm)
# talks to a CleverAgents agent over JSON-RPC or HTTP+JSON — agent card, send,
# stream, get, list, cancel — via conformance/interop/js/client.mjs.
#
#   conformance/interop/js/run.sh --url http://127.0.0.1:PORT/ [--binding JSONRPC|HTTP+JSON]
#
# The SDK is installed, pinned by package.json, under target/ (A2A_INTEROP_NODE
# overrides) and reused on later runs; every network step and the client run
# are bounded by timeouts.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
prefix="${A2A_INTEROP_NODE:-$root/target/a2a-interop-node}"
url=""
binding="JSONRPC"

while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --binding) binding="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$url" ] || { echo "run.sh: --url is required" >&2; exit 2; }
command -v node >/dev/null || { echo "run.sh: node is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "run.sh: npm is required" >&2; exit 2; }

# Reinstalled only when package.json changed. ES modules resolve packages next
# to the importing file, so the client runs from the install directory.
marker="$prefix/.installed-$(sha256sum "$here/package.json" | cut -c1-16)"
if [ ! -f "$marker" ]; then
  echo "run.sh: installing the pinned @a2a-js/sdk into $prefix" >&2
  rm -rf "$prefix"
  mkdir -p "$prefix"
  cp "$here/package.json" "$prefix/"
  (cd "$prefix" && timeout 600 npm install --silent --no-audit --no-fund --fetch-timeout 60000 --fetch-retries 3)
  touch "$marker"
fi
cp "$here/client.mjs" "$prefix/client.mjs"
timeout 120 node "$prefix/client.mjs" "$url" "$binding"
