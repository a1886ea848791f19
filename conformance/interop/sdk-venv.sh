#!/usr/bin/env bash
# Makes sure the official A2A Python SDK (a2a-sdk from PyPI, pinned) is in its
# venv under target/, and prints the venv's python. One install at a time:
# runs started together wait for the first to finish, then use its venv.
#
#   conformance/interop/sdk-venv.sh 1.0   # a2a-sdk 1.x (A2A_SDK_VERSION, A2A_INTEROP_VENV)
#   conformance/interop/sdk-venv.sh 0.3   # a2a-sdk 0.3.x (A2A_SDK_V03_VERSION, A2A_INTEROP_V03_VENV)
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
python="${PYTHON:-python3}"
case "${1:-}" in
  1.0)
    sdk_version="${A2A_SDK_VERSION:-1.3.0}"
    # With its gRPC client (grpcio) for the gRPC binding's interop.
    extras="[grpc]"
    venv="${A2A_INTEROP_VENV:-$root/target/a2a-interop-venv}" ;;
  0.3)
    sdk_version="${A2A_SDK_V03_VERSION:-0.3.26}"
    extras=""
    venv="${A2A_INTEROP_V03_VENV:-$root/target/a2a-interop-v03-venv}" ;;
  *) echo "sdk-venv.sh: which protocol's SDK? (1.0 or 0.3)" >&2; exit 2 ;;
esac
command -v "$python" >/dev/null || { echo "sdk-venv.sh: $python is required" >&2; exit 2; }

# The venv is (re)built only when the pinned SDK is not already in it.
marker="$venv/.a2a-sdk$extras-$sdk_version"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock -w 900 9 || { echo "sdk-venv.sh: could not lock $venv.lock" >&2; exit 2; }
if [ ! -f "$marker" ]; then
  echo "sdk-venv.sh: installing a2a-sdk$extras==$sdk_version into $venv" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  timeout 600 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --timeout 60 --retries 3 "a2a-sdk$extras==$sdk_version"
  touch "$marker"
fi
flock -u 9
echo "$venv/bin/python"
