#!/usr/bin/env bash
# Interop check: the official A2A Python SDK client (a2a-sdk from PyPI) talks
# to a CleverAgents agent over JSON-RPC or HTTP+JSON — agent card, send, stream,
# get, list, cancel — via conformance/interop/client.py; with --protocol 0.3,
# the SDK's A2A 0.3 JSON-RPC client (a2a-sdk 0.3.x) via client_v03.py — card,
# message/send, message/stream, tasks/get, tasks/cancel, push config set/get.
#
#   conformance/interop/run.sh --url http://127.0.0.1:PORT/   # an agent already running
#   conformance/interop/run.sh                                 # starts target/debug/cleveragents-agent
#   conformance/interop/run.sh --binding HTTP+JSON             # the REST binding (default JSONRPC)
#   conformance/interop/run.sh --protocol 0.3                  # the 0.3 client (JSON-RPC only)
#   conformance/interop/run.sh --url https://… --ca-file ca.pem # an https agent, its CA
#
# Each SDK is installed into its own venv under target/ by sdk-venv.sh,
# pinned and reused on later runs; A2A_INTEROP_VENV and A2A_SDK_VERSION
# override the 1.0 client's, A2A_INTEROP_V03_VENV and A2A_SDK_V03_VERSION the
# 0.3 client's. Every network step and the client run are bounded by timeouts.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
url=""
binding="JSONRPC"
protocol="1.0"

while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --binding) binding="$2"; shift 2 ;;
    --protocol) protocol="$2"; shift 2 ;;
    --ca-file) export A2A_INTEROP_CA_FILE="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

case "$protocol" in
  1.0) client=(client.py "$binding") ;;
  0.3)
    [ "$binding" = "JSONRPC" ] || { echo "run.sh: the 0.3 client is driven over JSONRPC only" >&2; exit 2; }
    client=(client_v03.py) ;;
  *) echo "run.sh: unknown protocol $protocol (1.0 or 0.3)" >&2; exit 2 ;;
esac

sdk_python="$(bash "$here/sdk-venv.sh" "$protocol")"

agent_pid=""
cleanup() { if [ -n "$agent_pid" ]; then kill "$agent_pid" 2>/dev/null || true; wait "$agent_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

if [ -z "$url" ]; then
  agent="${CLEVERAGENTS_AGENT:-$root/target/debug/cleveragents-agent}"
  [ -x "$agent" ] || { echo "run.sh: $agent not found (cargo build -p cleveragents-agent)" >&2; exit 2; }
  port="$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  "$agent" --listen "127.0.0.1:$port" --memory 2>"${TMPDIR:-/tmp}/a2a-interop-agent.log" &
  agent_pid=$!
  url="http://127.0.0.1:$port/"
  # Wait (bounded) until the card is served.
  for _ in $(seq 1 100); do
    "$python" -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1]+'.well-known/agent-card.json', timeout=1)" "$url" 2>/dev/null && break
    sleep 0.1
  done
fi

timeout 120 "$sdk_python" "$here/${client[0]}" "$url" "${client[@]:1}"
