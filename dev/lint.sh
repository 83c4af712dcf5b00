#!/usr/bin/env bash
# `npm run lint`: eslint (with the type-aware rules and the import fences), prettier --check, then
# tsc --noEmit. The last two keep what they learned in the cache directory outside the clone (where
# the stack's components are), so a fresh clone of a tree checked before re-checks only the files
# that changed (docs/timings.md):
# - prettier's own cache (each file's content hash and the options' hash), which names files by
#   absolute path: kept with the clone's root replaced by a placeholder, so any clone can use it;
# - tsc's incremental build info (every file's content hash, the options, the compiler's version),
#   copied into the clone while tsc runs, since it names the files relative to where it lies.
# ESLint keeps none: with type-aware rules a file's result depends on the files it imports, which
# its cache does not track. HIM_LINT_CACHE=off runs all three from scratch.
set -euo pipefail
cd "$(dirname "$0")/.."
./node_modules/.bin/eslint .
if [ "${HIM_LINT_CACHE:-on}" = off ]; then
  ./node_modules/.bin/prettier --check "**/*.{ts,mjs}"
  exec ./node_modules/.bin/tsc --noEmit -p tsconfig.json
fi
cache="${HIM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hms-iceberg-migrator}/lint"
mkdir -p "$cache"
versions=$(node -p 'require("typescript/package.json").version + "-" + require("prettier/package.json").version')
# relocate FROM TO FILE_IN FILE_OUT: FILE_IN's JSON strings starting with FROM/ start with TO/ in FILE_OUT.
relocate() {
  node -e 'const fs = require("fs"); const [from, to, a, b] = process.argv.slice(1); const q = (r) => JSON.stringify(`${r}/`).slice(0, -1);
    fs.writeFileSync(b, fs.readFileSync(a, "utf8").split(q(from)).join(q(to)));' "$@"
}
pretty=.prettier-cache.json # gitignored
rm -f "$pretty"
[ -f "$cache/prettier-$versions.json" ] && relocate @ROOT@ "$PWD" "$cache/prettier-$versions.json" "$pretty"
./node_modules/.bin/prettier --check --cache --cache-strategy content --cache-location "$pretty" "**/*.{ts,mjs}"
relocate "$PWD" @ROOT@ "$pretty" "$cache/prettier-$versions.json.tmp-$$" && mv "$cache/prettier-$versions.json.tmp-$$" "$cache/prettier-$versions.json"
info=.tsbuildinfo # gitignored
saved="$cache/tsc-$versions.tsbuildinfo"
[ -f "$saved" ] && cp "$saved" "$info"
./node_modules/.bin/tsc --noEmit -p tsconfig.json --incremental --tsBuildInfoFile "$info"
cp "$info" "$saved.tmp-$$" && mv "$saved.tmp-$$" "$saved"
