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
# node_modules for this package-lock.json: copied from the cache directory, else npm ci (dev/npm-packages.sh).
bash dev/npm-packages.sh

out="${HIM_STATE_DIR:-.stack}"
mkdir -p "$out"
# The CLI's compile cache (cli/compile-cache.ts) of this run's migrate calls: in the state directory,
# not the user's cache (its entries are named by the modules' paths, which a fresh clone changes).
export HIM_COMPILE_CACHE="${HIM_COMPILE_CACHE:-$(cd "$out" && pwd)/compile-cache}"
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

step "lint and the unit project (no components), side by side"
# Lint (eslint, prettier, tsc: one core) beside the unit project (two jest workers): on two cores the
# pair took 2 min 45 s on a fresh clone against 3 min 49 s one after the other (docs/timings.md).
# Both must pass; lint's output follows the unit project's.
# The one unit suite that writes files into the source tree (the import-fence probes, for ~25 s:
# test/unit/lint/fences.test.ts) runs after lint, still beside the rest of the unit project: tsc
# and eslint listing a probe that is gone by the time they read it failed lint (TS6053) once.
lint_log="$out/lint.log"
fences=test/unit/lint/fences.test.ts
(
  npm run -s lint || exit 1
  ./node_modules/.bin/jest --ci --selectProjects unit --runTestsByPath "$fences" || exit 2
) >"$lint_log" 2>&1 &
lint_pid=$!
# No --forceExit here: a unit suite that leaves a handle open (a timer, a native runtime) is a bug
# and fails the run, named by the timeout, instead of being hidden.
unit_rc=0
timeout --kill-after=10 600 ./node_modules/.bin/jest --ci --selectProjects unit --maxWorkers="${HIM_UNIT_WORKERS:-2}" \
  --testPathIgnorePatterns "/${fences//./\\.}\$" || unit_rc=$?
[ "$unit_rc" = 124 ] && echo "unit tests did not exit within 600 s: a suite left a handle open (run with --detectOpenHandles)" >&2
lint_rc=0
wait "$lint_pid" || lint_rc=$?
step "lint, then $fences (exit $lint_rc: 1 lint failed, 2 the fences failed)"
cat "$lint_log"
[ "$lint_rc" = 0 ] || exit "$lint_rc"
[ "$unit_rc" = 0 ] || exit "$unit_rc"

stack() { ./node_modules/.bin/tsx dev/stack/main.ts "$@"; }
started_here=0
if ! stack status >/dev/null 2>&1; then started_here=1; fi
cleanup() {
  local rc=$?
  # The class archive's maker (its own session: its warm-up job goes with it), when it still runs.
  [ -n "${archive_pid:-}" ] && kill -TERM -- "-$archive_pid" 2>/dev/null || true
  # The suites' shared Spark drivers (dev/verifier/spark_jobs_server.py; each kills its driver on TERM).
  for f in "$out"/spark-jobs/*/server.pid; do [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null || true; done
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

# The suites' spark-submit jobs start from a class archive of the Spark driver once it is made
# (test/helpers/spark-class-archive.ts: ~30 % less CPU a job). Made once per component cache: its
# maker starts here, waits for the REST catalog (among the first components up) and runs its warm-up
# job while the rest of the stack starts, so the suites' first jobs have it (made during the lanes
# instead, nice 10, it took 276-323 s and the jobs of the first ~5 min ran without it: cold runs,
# docs/timings.md). With the archive in the cache it exits at once.
step "the Spark class archive, beside stack up when the cache has none (log: $out/spark-class-archive.log)"
setsid ./node_modules/.bin/tsx test/helpers/spark-class-archive-make.ts --wait-seconds 300 >"$out/spark-class-archive.log" 2>&1 &
archive_pid=$!

step "stack up"
stack up
# The jest runs below skip their global set-up's own `stack up` (test/helpers/global-setup.ts).
export HIM_TEST_STACK_UP=1

# Once, before the tests: they run bin/migrate, which runs the compiled dist/ (and would otherwise
# build it on its first call, inside a test's time budget).
step "build"
./node_modules/.bin/tsx dev/build.ts

step "stack-bound tests (integration, adapters, e2e)"
# Three kinds (test/schedule.txt), two lanes side by side, then the suites that need the stack alone:
# - the parallel lane: every suite not marked `serial` or `alone`, in HIM_TEST_WORKERS jest workers
#   (default 3: on two cores the lane is bound by the CPU, a fourth worker made it no faster —
#   docs/timings.md), at a lower CPU priority (nice 10, with every process it starts);
# - the serial lane, beside it: the `serial` suites (wall-clock bounds, frozen or killed workers of
#   their own), one at a time, at normal priority, so another suite's load does not break their
#   bounds; they wait more than they compute (the CPU 66 % idle when they ran alone), which the
#   parallel lane now uses;
# - then the `alone` suites (they stop or kill a component every suite shares), in band.
# All three run even when one fails. Every suite's wall time goes to jest-results*.json in the state
# directory (npx tsx dev/tools/suite-timings.ts <those files> prints the slowest: docs/timings.md).
kind() { sed 's/#.*//' test/schedule.txt | awk -v k="$1" '$1 == k { print $2 }'; }
mapfile -t serial < <(kind serial)
mapfile -t alone < <(kind alone)
ignore=$(printf '%s|' "${serial[@]}" "${alone[@]}" | sed 's/\./\\./g; s/|$//')
rc=0
nice -n "${HIM_TEST_PARALLEL_NICE:-10}" ./node_modules/.bin/jest --ci --forceExit --selectProjects integration --maxWorkers="${HIM_TEST_WORKERS:-3}" \
  --testPathIgnorePatterns "/($ignore)\$" --json --outputFile="$out/jest-results.json" &
parallel_pid=$!
serial_log="$out/jest-serial.log"
step "the serial lane: ${#serial[@]} suites of test/schedule.txt, one at a time beside the parallel lane (its output when it ends; log: $serial_log)"
./node_modules/.bin/jest --ci --runInBand --forceExit --selectProjects integration --runTestsByPath "${serial[@]}" \
  --json --outputFile="$out/jest-results-serial.json" >"$serial_log" 2>&1 || rc=$?
step "the serial lane ended (exit $rc); its output:"
cat "$serial_log"
wait "$parallel_pid" || rc=$?
wait "$archive_pid" || echo "the Spark class archive was not made (the jobs ran without it): $(tail -n 1 "$out/spark-class-archive.log")" >&2
grep -h "^spark class archive" "$out/spark-class-archive.log" || true
step "the parallel lane ended; the suites that need the stack alone (${#alone[@]} of test/schedule.txt)"
if [ "${#alone[@]}" -gt 0 ]; then
  ./node_modules/.bin/jest --ci --runInBand --forceExit --selectProjects integration --runTestsByPath "${alone[@]}" \
    --json --outputFile="$out/jest-results-alone.json" || rc=$?
fi
exit "$rc"
