#!/usr/bin/env bash
# The README's test command (`npm test`). On a fresh clone it installs everything the tests need
# (npm packages; the stack's components into the cache outside the clone), then fails fast: lint
# and the unit project (no components) run first and a failure there exits before the stack is
# touched. Then it brings the local stack up and runs the stack-bound project (integration +
# adapters + e2e against the real components), and exits non-zero on any failure. It stops the stack afterwards when it was the one that started it
# (HIM_KEEP_STACK=1 keeps it running).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
step() { printf '\n== %s (%ss)\n' "$*" "$(( $(date +%s) - t0 ))"; }

step "npm packages"
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.package-lock.json.src 2>/dev/null; then
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.package-lock.json.src
fi

out="${HIM_STATE_DIR:-.stack}"
mkdir -p "$out"
# The stack's components install (into the cache, once) in their own session beside lint and the
# unit project: on a fresh machine the installs take ~11-14 min, which this hides ~2-3 min of. A
# failure before the stack is needed stops the install (installs are atomic: a killed one leaves
# nothing half-installed, docs/design/stack-components.md); an install failure fails the run below.
step "stack install, in the background (log: $out/stack-install.log)"
setsid ./node_modules/.bin/tsx dev/stack/main.ts install >"$out/stack-install.log" 2>&1 &
install_pid=$!
stop_install() { kill -TERM -- "-$install_pid" 2>/dev/null || true; }

# Until the stack is involved, an early failure only reports itself.
trap 'rc=$?; stop_install; step "done, exit $rc"; exit "$rc"' EXIT

step "lint"
npm run -s lint

step "unit tests (no components)"
# No --forceExit here: a unit suite that leaves a handle open (a timer, a native runtime) is a bug
# and fails the run, named by the timeout, instead of being hidden. The project takes ~1 min.
timeout --kill-after=10 600 ./node_modules/.bin/jest --ci --selectProjects unit ||
  { rc=$?; [ "$rc" = 124 ] && echo "unit tests did not exit within 600 s: a suite left a handle open (run with --detectOpenHandles)" >&2; exit "$rc"; }

stack() { ./node_modules/.bin/tsx dev/stack/main.ts "$@"; }
started_here=0
if ! stack status >/dev/null 2>&1; then started_here=1; fi
cleanup() {
  local rc=$?
  if [ "$started_here" = 1 ] && [ "${HIM_KEEP_STACK:-0}" != 1 ]; then
    step "stack down"
    stack down || true
  fi
  step "done, exit $rc"
  exit "$rc"
}
trap cleanup EXIT

step "stack install (waiting for the background install)"
if ! wait "$install_pid"; then
  echo "stack install failed; the end of $out/stack-install.log:" >&2
  tail -n 40 "$out/stack-install.log" >&2
  exit 1
fi
grep -E "installed|already" "$out/stack-install.log" || true

step "stack up"
stack up

# Once, before the tests: they run bin/migrate, which runs the compiled dist/ (and would otherwise
# build it on its first call, inside a test's time budget).
step "build"
./node_modules/.bin/tsx dev/build.ts

step "stack-bound tests (integration, adapters, e2e)"
# Two batches (test/schedule.txt): every suite not marked `serial` in HIM_TEST_WORKERS parallel jest
# workers (default 3: on two cores the batch is bound by the CPU, a fourth worker made it no faster —
# docs/timings.md), then the `serial` ones
# (wall-clock bounds, frozen or killed workers) alone, in band. Both run even when the first fails.
# Every suite's wall time goes to jest-results*.json in the state directory (npx tsx
# dev/tools/suite-timings.ts <those files> prints the slowest: docs/timings.md).
mapfile -t serial < <(sed 's/#.*//' test/schedule.txt | awk '$1 == "serial" { print $2 }')
ignore=$(printf '%s|' "${serial[@]}" | sed 's/\./\\./g; s/|$//')
rc=0
./node_modules/.bin/jest --ci --forceExit --selectProjects integration --maxWorkers="${HIM_TEST_WORKERS:-3}" \
  --testPathIgnorePatterns "/($ignore)\$" --json --outputFile="$out/jest-results.json" || rc=$?
step "stack-bound tests that run alone (${#serial[@]} suites of test/schedule.txt)"
./node_modules/.bin/jest --ci --runInBand --forceExit --selectProjects integration --runTestsByPath "${serial[@]}" \
  --json --outputFile="$out/jest-results-serial.json" || rc=$?
exit "$rc"
