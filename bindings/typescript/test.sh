#!/usr/bin/env bash
# The TypeScript package's checks: installs the pinned dependencies from npm
# (npm ci, from package-lock.json), type-checks the package, its tests and
# its example strictly, checks that its browser entry bundles for the
# browser without Node modules (and prints the bundle's size), then runs the
# tests against the real agent with node's built-in test runner; the browser
# tests drive headless Chromium (scripts/chromium installs it).
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

# The browser entry type-checks with the DOM's types and without Node's,
# and a page using it bundles for the browser: esbuild's browser platform
# fails on any Node module (a `node:` import), which no polyfill hides.
timeout 300 node_modules/.bin/tsc -p tsconfig.browser.json
mkdir -p dist/browser
timeout 120 node_modules/.bin/esbuild examples/browser-page.ts --bundle --platform=browser \
  --format=iife --minify --log-level=warning --outfile=dist/browser/page.js
# The check bites: the Node entry (stdio transport) does not bundle for the browser.
if timeout 120 node_modules/.bin/esbuild src/index.ts --bundle --platform=browser \
     --log-level=silent --outfile=dist/browser/node-entry.js; then
  echo "test.sh: the Node entry bundled for the browser: the check above proves nothing" >&2
  exit 1
fi
echo "test.sh: a page using the browser entry: $(wc -c < dist/browser/page.js) bytes minified," \
  "$(gzip -9 -c dist/browser/page.js | wc -c) bytes gzipped" >&2
# The console the agent embeds carries this entry, bundled (../../server/console/contract.js).
timeout 120 node_modules/.bin/esbuild src/browser.ts --bundle --platform=browser --format=esm \
  --log-level=warning --legal-comments=none --outfile=dist/browser/contract.js \
  "--banner:js=// The package's browser entry (bindings/typescript/src/browser.ts) bundled by its test.sh; do not edit."
if ! cmp -s dist/browser/contract.js "$root/server/console/contract.js"; then
  if [ "${UPDATE_CONSOLE:-}" = 1 ]; then
    cp dist/browser/contract.js "$root/server/console/contract.js"
  else
    echo "test.sh: server/console/contract.js is not the bundle of src/browser.ts;" \
      "rerun with UPDATE_CONSOLE=1 to rewrite it" >&2
    exit 1
  fi
fi

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
