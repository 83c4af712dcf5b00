#!/usr/bin/env bash
# The npm packages of this checkout, for `npm test` (dev/test.sh) and `npm run demo` (dev/demo.sh).
# Nothing to do when node_modules was installed from this package-lock.json. Else a fresh clone's
# node_modules is a copy of the one `npm ci` made for the same package-lock.json, Node version and
# platform, kept in the cache directory's `node-modules/` (where the stack's components are):
# cp -a takes ~1-3 s where npm ci took ~25 s and ~33 CPU s (docs/timings.md). A copy, not links:
# nothing the clone writes reaches the cache. A copy that fails (the entry replaced meanwhile) falls
# back to npm ci. The newest three trees are kept. HIM_NPM_CACHE=off runs npm ci every time.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json node_modules/.package-lock.json.src 2>/dev/null; then
  exit 0
fi
cache_root="${HIM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hms-iceberg-migrator}"
key=$( { cat package-lock.json; node -p 'process.version + process.platform + process.arch'; } | sha256sum | cut -c1-16)
cached="$cache_root/node-modules/$key"
if [ "${HIM_NPM_CACHE:-on}" != off ] && [ -f "$cached/.package-lock.json.src" ]; then
  rm -rf node_modules
  if cp -a "$cached" node_modules && cmp -s package-lock.json node_modules/.package-lock.json.src; then
    echo "node_modules: copied from $cached"
    exit 0
  fi
  echo "node_modules: the copy from $cached failed; running npm ci" >&2
fi
rm -rf node_modules
npm ci --no-audit --no-fund
cp package-lock.json node_modules/.package-lock.json.src
[ "${HIM_NPM_CACHE:-on}" != off ] || exit 0
mkdir -p "$cache_root/node-modules"
rm -rf "$cached.tmp-$$"
if cp -a node_modules "$cached.tmp-$$"; then
  rm -rf "$cached" && mv "$cached.tmp-$$" "$cached" || rm -rf "$cached.tmp-$$"
else
  rm -rf "$cached.tmp-$$"
fi
# shellcheck disable=SC2012 # the names are hex keys
ls -dt "$cache_root"/node-modules/*/ 2>/dev/null | tail -n +4 | xargs -r rm -rf
