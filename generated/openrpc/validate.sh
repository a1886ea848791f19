#!/usr/bin/env bash
# Validates an OpenRPC document (default: the contract's generated one)
# against the official OpenRPC meta-schema from npm.
#
#   generated/openrpc/validate.sh [DOCUMENT.json]
#
# The npm packages are installed, pinned, under target/ (OPENRPC_NODE_DIR
# overrides) and reused on later runs; every network step is bounded.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
document="${1:-$root/generated/src/gen/openrpc.json}"
prefix="${OPENRPC_NODE_DIR:-$root/target/openrpc-node}"
packages=(@open-rpc/meta-schema@1.14.9 @json-schema-tools/meta-schema@1.8.0 ajv@8.20.0 ajv-formats@3.0.1)

command -v node >/dev/null || { echo "validate.sh: node is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "validate.sh: npm is required" >&2; exit 2; }

marker="$prefix/.installed-$(echo "${packages[*]}" | tr ' /@' '_+-')"
if [ ! -f "$marker" ]; then
  echo "validate.sh: installing ${packages[*]} into $prefix" >&2
  rm -rf "$prefix"
  mkdir -p "$prefix"
  timeout 600 npm install --prefix "$prefix" --silent --no-audit --no-fund \
    --fetch-timeout 60000 --fetch-retries 3 "${packages[@]}"
  touch "$marker"
fi

NODE_PATH="$prefix/node_modules" timeout 120 node "$here/validate.cjs" "$document"
