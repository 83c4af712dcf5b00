#!/usr/bin/env bash
# `npm run test:one -- <test file> [jest options]`: one suite in seconds, against the stack that is
# already running (brought up with `npm run stack -- up <components>` and the same HIM_STATE_DIR /
# HIM_PORT_OFFSET). It starts no new components: global setup is limited to the ones running
# (HIM_TEST_COMPONENTS, unless set) and checks their health. dist/ is rebuilt only when stale
# (bin/migrate's rule).
# A unit suite (test/unit, test/workflows) needs no stack and runs in the unit project.
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: npm run test:one -- <test file> [jest options]   (file not found: '${1:-}')" >&2
  exit 2
fi
file=$1
shift
jest=./node_modules/.bin/jest
case "$file" in
  test/unit/* | test/workflows/* | ./test/unit/* | ./test/workflows/*)
    exec "$jest" --selectProjects unit --runTestsByPath "$file" "$@"
    ;;
esac
if [ -z "${HIM_TEST_COMPONENTS:-}" ]; then
  HIM_TEST_COMPONENTS=$(./node_modules/.bin/tsx dev/stack/main.ts status --json 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const rows=JSON.parse(s||"[]");process.stdout.write(rows.filter((r)=>r.running).map((r)=>r.name).join(","))})' || true)
  if [ -z "$HIM_TEST_COMPONENTS" ]; then
    echo "test:one: no component of the stack in ${HIM_STATE_DIR:-.stack} is running; start what the suite needs first," >&2
    echo "  e.g. npm run stack -- up postgres s3 temporal hms-pg iceberg-rest   (same HIM_STATE_DIR / HIM_PORT_OFFSET)" >&2
    exit 1
  fi
  export HIM_TEST_COMPONENTS
fi
echo "test:one: against $HIM_TEST_COMPONENTS" >&2
./node_modules/.bin/tsx dev/build.ts --if-stale --quiet
exec "$jest" --runInBand --forceExit --selectProjects integration --runTestsByPath "$file" "$@"
