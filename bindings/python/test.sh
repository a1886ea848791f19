#!/usr/bin/env bash
# Tests the Python binding package against the real agent: a pinned venv
# under target/ (built once, reused while the pins are unchanged), mypy
# --strict on the package, its tests and example, a wheel, then pytest.
#
#   bindings/python/test.sh [pytest args...]
#
# CLEVERAGENTS_AGENT names the agent binary (default target/debug/cleveragents-agent,
# built when missing); PYTHON the interpreter the venv is made from;
# CLEVERAGENTS_PY_VENV the venv's folder.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
venv="${CLEVERAGENTS_PY_VENV:-$root/target/python-bindings-venv}"
command -v "$python" >/dev/null || { echo "test.sh: $python is required" >&2; exit 2; }

# Every install is pinned, so a run is reproducible; the marker names the pins,
# so editing them rebuilds the venv.
pins=(
  "a2a-sdk==1.3.0"
  "pydantic==2.14.4"
  "httpx==0.29.0"
  "protobuf==7.36.2"
  "types-protobuf==7.35.1.20261122"
  "mypy==2.4.1"
  "pytest==9.2.0"
  "setuptools==84.2.1"
  "wheel==0.48.0"
  "ruff==0.17.6"
)
marker="$venv/.pins-$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-16)"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock -w 900 9 || { echo "test.sh: could not lock $venv.lock" >&2; exit 2; }
if [ ! -f "$marker" ]; then
  echo "test.sh: installing the pinned tools into $venv" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  timeout 900 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --timeout 60 --retries 3 "${pins[@]}"
  touch "$marker"
fi
flock -u 9
py="$venv/bin/python"

agent="${CLEVERAGENTS_AGENT:-$root/target/debug/cleveragents-agent}"
if [ ! -x "$agent" ]; then
  (cd "$root" && cargo build -q -p cleveragents-agent)
fi
export CLEVERAGENTS_AGENT="$agent"

# Caches stay in the package's ignored folders.
export PYTHONDONTWRITEBYTECODE=1 RUFF_CACHE_DIR="$here/.ruff_cache"
cd "$here"
echo "test.sh: ruff" >&2
# The hand-written code is formatted and linted; the generated code is held
# to the schemas by the drift gate instead.
"$py" -m ruff format --check --quiet .
"$py" -m ruff check --quiet .

echo "test.sh: mypy --strict" >&2
# The README's example is checked with the rest.
mkdir -p build
awk '/^```python$/ { inside = 1; next } /^```$/ { inside = 0 } inside' README.md >build/readme_example.py
"$py" -m mypy --strict --cache-dir .mypy_cache src tests examples build/readme_example.py

echo "test.sh: wheel" >&2
rm -rf build dist
# The venv has the build backend: no isolated build, so nothing is fetched here.
"$py" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
  --wheel-dir dist . >/dev/null
rm -rf build src/*.egg-info
ls dist/cleveragents_contract-*.whl >/dev/null

echo "test.sh: pytest" >&2
PYTHONPATH="$here/src" "$py" -m pytest -q -p no:cacheprovider "$@"
