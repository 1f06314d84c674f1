#!/usr/bin/env bash
# The load benchmark of docs/benchmarks.md in one command: N concurrent
# clients run trials (suggest, k measurements, complete) against a live
# `vernier serve` on SQLite and on PostgreSQL, then the same load through
# Optuna's RDB storage on the same PostgreSQL server as the baseline. Between
# them, PostgreSQL again at a fixed offered load (RATE trials/s over all
# clients, each client on a fixed schedule; 0 skips it): the latencies below
# saturation. Then PostgreSQL once more with fewer calls per trial, as a
# batching client makes them: PER_CALL measurements per AddMeasurement and
# each completion carried by the next SuggestTrials (0 skips it), closed
# loop and at RATE.
# Starts a throw-away PostgreSQL server (scripts/postgres-up.sh, fsync on)
# unless VERNIER_TEST_POSTGRES_URL names one, and stops it at the end.
#
#   scripts/load-bench.sh [CLIENTS [MEASUREMENTS [SECONDS [RATE [PER_CALL]]]]]
#                                                   # default 32 10 10 300 5
#
# Fault mode: the same load on PostgreSQL only, on a server of its own that
# is stopped (fast shutdown) 10 s into a 30 s window and started again 5 s
# later; prints trials/s before, while down and after, the seconds until the
# rate is back to half the one before, and the acknowledged measurements
# lost (which must be 0):
#
#   scripts/load-bench.sh fault [CLIENTS [MEASUREMENTS]]   # default 32 10
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = fault ]; then
  build=${VERNIER_BUILD_DIR:-build}
  [ -x "$build/bin/load_bench" ] || {
    echo "load-bench: $build/bin/load_bench is missing; run scripts/build.sh first" >&2
    exit 1
  }
  postgres_dir=$(scripts/postgres-up.sh)
  trap 'scripts/postgres-down.sh "$postgres_dir"' EXIT
  VERNIER_TEST_POSTGRES_URL=$(cat "$postgres_dir/url")
  export VERNIER_TEST_POSTGRES_URL
  "$build/bin/load_bench" --db postgres --clients "${2:-32}" --measurements "${3:-10}" \
    --seconds 30 --restart-postgres "$postgres_dir" --fault-at 10 --fault-down 5
  exit 0
fi
clients=${1:-32}
measurements=${2:-10}
seconds=${3:-10}
rate=${4:-300}
per_call=${5:-5}
build=${VERNIER_BUILD_DIR:-build}
[ -x "$build/bin/load_bench" ] || {
  echo "load-bench: $build/bin/load_bench is missing; run scripts/build.sh first" >&2
  exit 1
}
if [ -z "${VERNIER_TEST_POSTGRES_URL:-}" ]; then
  postgres_dir=$(scripts/postgres-up.sh)
  trap 'scripts/postgres-down.sh "$postgres_dir"' EXIT
  VERNIER_TEST_POSTGRES_URL=$(cat "$postgres_dir/url")
  export VERNIER_TEST_POSTGRES_URL
fi

"$build/bin/load_bench" --db sqlite,postgres --clients "$clients" \
  --measurements "$measurements" --seconds "$seconds"
if [ "$rate" != 0 ]; then
  "$build/bin/load_bench" --db postgres --clients "$clients" \
    --measurements "$measurements" --seconds "$seconds" --trials-per-second "$rate"
fi
if [ "$per_call" != 0 ]; then
  fewer=(--measurements-per-call "$per_call" --complete-in-suggest)
  "$build/bin/load_bench" --db postgres --clients "$clients" \
    --measurements "$measurements" --seconds "$seconds" "${fewer[@]}"
  if [ "$rate" != 0 ]; then
    "$build/bin/load_bench" --db postgres --clients "$clients" \
      --measurements "$measurements" --seconds "$seconds" --trials-per-second "$rate" "${fewer[@]}"
  fi
fi

echo
# Debian's Optuna loads only under /usr/bin/python3.
if ! /usr/bin/python3 -c 'import optuna, psycopg2' 2>/dev/null; then
  echo "baseline skipped: /usr/bin/python3 lacks optuna or psycopg2 (Debian python3-optuna, python3-psycopg2)"
  exit 0
fi
database="optuna_baseline_$$"
psql "$VERNIER_TEST_POSTGRES_URL" -qc "CREATE DATABASE $database"
/usr/bin/python3 bench/optuna_rdb_baseline.py --url "${VERNIER_TEST_POSTGRES_URL%/*}/$database" \
  --workers "$clients" --reports "$measurements" --seconds "$seconds"
psql "$VERNIER_TEST_POSTGRES_URL" -qc "DROP DATABASE $database WITH (FORCE)"
