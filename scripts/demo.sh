#!/usr/bin/env bash
# README command 1: installs what is missing, builds, starts an embedded
# server (SQLite in a fresh data directory), runs the example tuning job
# (12 trials, 3 at a time) and prints its leaderboard. Stops the server by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh

vernier=build/bin/vernier
work=$(mktemp -d /tmp/vernier-demo-XXXXXX)
"$vernier" serve --port 0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
server_pid=$!
trap 'kill -TERM $server_pid 2>/dev/null; wait $server_pid 2>/dev/null || true' EXIT

for _ in $(seq 300); do
  address=$(grep -oE 'listening on [0-9.]+:[0-9]+' "$work/serve.log" | head -1 | awk '{print $3}' || true)
  [ -n "$address" ] && break
  kill -0 $server_pid 2>/dev/null || { cat "$work/serve.log"; exit 1; }
  sleep 0.1
done
export VERNIER_SERVER=$address
dashboard=$(grep -oE 'dashboard and HTTP API at \S+' "$work/serve.log" | head -1 | awk '{print $6}')
echo "vernier serve is up on $address (data in $work/data, log $work/serve.log)"
# The link logs the browser in with this user's admin token, which the server
# wrote (0600) into its data directory.
echo "Dashboard, while the demo runs: ${dashboard}?token=$(cat "$work/data/admin.token")"

job=lr_sweep_001
"$vernier" jobs submit training "$job" --config examples/hptuning_config.yaml --job-dir "$work/runs" \
  -- python3 examples/trainer/train.py --epochs 5

while true; do
  state=$("$vernier" jobs describe "$job" --format json | grep -oE '"state": *"[A-Z_]+"' | head -1 | grep -oE '[A-Z_]{4,}')
  case "$state" in
    SUCCEEDED|FAILED|CANCELLED) break ;;
  esac
  sleep 1
done
"$vernier" jobs describe "$job"
echo
"$vernier" trials leaderboard "$job" --top 12
[ "$state" = SUCCEEDED ]
