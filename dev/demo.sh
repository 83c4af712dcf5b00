#!/usr/bin/env bash
# The README's demo command (`npm run demo`): stack up, seed a demo warehouse, plan it, start a
# worker, apply the plan with --auto-approve, print the per-wave result and the Temporal UI link
# filtered to the plan. Idempotent: a second run reuses the stack, the seeded warehouse and the plan
# (applying it again re-registers nothing); the plan is new only when the warehouse changed.
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
# node_modules when there is none: copied from the cache directory, else npm ci (dev/npm-packages.sh).
[ -f node_modules/.package-lock.json ] || bash dev/npm-packages.sh
stack() { ./node_modules/.bin/tsx dev/stack/main.ts "$@"; }
# Only what the demo uses, so a first run installs just these (docs/timings.md); the verifier venv
# is the seed's pyarrow. `npm run stack -- up` with no names brings up the whole stack (the tests).
DEMO_COMPONENTS=(postgres s3 temporal hms-pg iceberg-rest verifier)
stack up "${DEMO_COMPONENTS[@]}"
eval "$(stack env)"
./bin/migrate doctor --config "$HIM_STATE_DIR/migrate.yaml" || { echo "doctor found a problem; see above" >&2; exit 1; }

DEMO_DIR="$HIM_STATE_DIR/demo"
mkdir -p "$DEMO_DIR"
CFG="$DEMO_DIR/migrate.yaml"
{
  sed 's/^  warehouse: \(.*\)$/  warehouse: \1\n  namespacePrefix: demo_/' "$HIM_STATE_DIR/migrate.yaml"
  cat <<YAML
plan:
  databases: [demo_sales, demo_misc]
  waves:
    maxTablesPerWave: 4
YAML
} > "$CFG"

echo "== seeding the demo warehouse (prefix 'demo') into $HIM_HMS_PG_URI"
./node_modules/.bin/tsx dev/seed/main.ts --hms "$HIM_HMS_PG_URI" --prefix demo --manifest "$DEMO_DIR/seed-manifest.json" >/dev/null

# Planning again would leave out every table an earlier demo registered (IN_TARGET_CATALOG) and
# show a nearly empty plan. While the seeded warehouse is the one planned, the demo applies its
# plan again instead (which re-registers nothing).
SEEDED=$(sha256sum "$DEMO_DIR/seed-manifest.json" | cut -d' ' -f1)
if [ -f "$DEMO_DIR/plan.json" ] && [ "$(cat "$DEMO_DIR/plan.seeded" 2>/dev/null)" = "$SEEDED" ]; then
  echo "== migrate plan: the warehouse is unchanged; reusing $DEMO_DIR/plan.json"
else
  echo "== migrate plan"
  ./bin/migrate plan --config "$CFG" --out "$DEMO_DIR/plan.json" --report "$DEMO_DIR/plan.md" --graph "$DEMO_DIR/plan.svg"
  echo "$SEEDED" > "$DEMO_DIR/plan.seeded"
fi

echo "== migrate worker (background; log in $DEMO_DIR/worker.log)"
./bin/migrate worker --config "$CFG" >"$DEMO_DIR/worker.log" 2>&1 &
WORKER=$!
trap 'kill $WORKER 2>/dev/null || true' EXIT

echo "== migrate apply --auto-approve --wait"
set +e
./bin/migrate apply "$DEMO_DIR/plan.json" --config "$CFG" --auto-approve --wait --max-failed 5
RC=$?
set -e
cat <<MSG

Plan report: $DEMO_DIR/plan.md   graph: $DEMO_DIR/plan.svg
The plan leaves out what cannot convert metadata-only (text, insert-only, bucketed, and tables
whose files sit in sub-directories); see "Not planned" in the report.
Next:
  ./bin/migrate status <plan> -c $CFG        ./bin/migrate rollback <plan> --wave N -c $CFG
  ./bin/migrate audit verify -c $CFG
MSG
exit $RC
