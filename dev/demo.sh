#!/usr/bin/env bash
# The README's demo command (`npm run demo`): brings the local stack up and shows where each
# component is. Later issues turn this into a full migration demo.
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
[ -f node_modules/.package-lock.json ] || npm ci --no-audit --no-fund
stack() { ./node_modules/.bin/tsx dev/stack/main.ts "$@"; }
stack up
eval "$(stack env)"
cat <<MSG

The local stack is up (state in $HIM_STATE_DIR):
  Temporal Web UI     $HIM_TEMPORAL_UI
  Temporal frontend   $HIM_TEMPORAL_ADDRESS
  Hive Metastore 4.0  $HIM_HMS_PG_URI (PostgreSQL-backed), $HIM_HMS_MARIADB_URI (MariaDB-backed)
  Hive Metastore 3.1  $HIM_HMS3_PG_URI (PostgreSQL-backed)
  Iceberg REST        $HIM_ICEBERG_REST_URI
  S3 (versitygw)      $HIM_S3_ENDPOINT  (buckets: warehouse, hive, results)
  State database      $HIM_POSTGRES_URL
  Toxiproxy API       $HIM_TOXIPROXY_URL

Checking every endpoint the way the migrator sees them:
MSG
./bin/migrate doctor --config "$HIM_STATE_DIR/migrate.yaml"
cat <<MSG

Next:
  eval "\$(npm run -s stack -- env)"                  # connection settings in your shell
  ./bin/migrate doctor -c $HIM_STATE_DIR/migrate.yaml
  npm run stack -- status | logs <component> | down
MSG
