#!/usr/bin/env bash
# The TypeScript package's checks: installs the pinned dependencies from npm
# (npm ci, from package-lock.json), type-checks the package, its tests and
# its example strictly, then runs the tests against the real agent with
# node's built-in test runner.
#
#   bindings/typescript/test.sh        (CLEVERAGENTS_AGENT overrides the agent binary)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"

command -v node >/dev/null || { echo "test.sh: node is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "test.sh: npm is required" >&2; exit 2; }

agent="${CLEVERAGENTS_AGENT:-$root/target/debug/cleveragents-agent}"
if [ ! -x "$agent" ]; then
  echo "test.sh: building the agent" >&2
  (cd "$root" && cargo build -q -p cleveragents-agent)
fi
export CLEVERAGENTS_AGENT="$agent"

# Reinstalled only when the lock file changed since the last install.
marker="node_modules/.installed-$(sha256sum package-lock.json | cut -c1-16)"
if [ ! -f "$marker" ]; then
  timeout 600 npm ci --silent --no-audit --no-fund --fetch-timeout 60000 --fetch-retries 3
  touch "$marker"
fi

rm -rf dist
timeout 300 node_modules/.bin/tsc -p tsconfig.json

# No `any` in the package's declarations (comments aside).
if grep -rnE '^[^*/]*[:<|,(] *any\b' dist/src --include='*.d.ts'; then
  echo "test.sh: the declarations above use \`any\`" >&2
  exit 1
fi
# The tarball carries the built entry point (dist/ exists: no rebuild).
timeout 120 npm pack --dry-run --ignore-scripts --json 2>/dev/null \
  | node -e 'const [p] = JSON.parse(require("fs").readFileSync(0, "utf8"));
             const files = new Set(p.files.map((f) => f.path));
             for (const f of ["dist/src/index.js", "dist/src/index.d.ts", "README.md"])
               if (!files.has(f)) { console.error(`npm pack lacks ${f}`); process.exit(1); }'

timeout 600 node --test --test-reporter=spec dist/test/*.test.js
