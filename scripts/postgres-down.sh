#!/usr/bin/env bash
# Stops a server scripts/postgres-up.sh started, by the PID it wrote, and
# removes its directory: scripts/postgres-down.sh DIR.
set -euo pipefail

dir=${1:?usage: scripts/postgres-down.sh DIR (the directory postgres-up.sh printed)}
[ -f "$dir/pid" ] || {
  echo "postgres-down: $dir/pid is missing; is $dir a directory postgres-up.sh made?" >&2
  exit 1
}
pid=$(cat "$dir/pid")

# Only a postmaster of this directory is ours to stop: the PID may have been
# reused since.
is_ours() {
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$dir/data"
}

if is_ours; then
  # SIGINT: fast shutdown (roll back sessions, checkpoint, exit).
  kill -INT "$pid"
  for _ in $(seq 1 300); do
    is_ours || break
    sleep 0.1
  done
  if is_ours; then
    echo "postgres-down: PID $pid did not stop in 30 s; sending SIGQUIT" >&2
    kill -QUIT "$pid" 2>/dev/null || true
    sleep 1
  fi
fi
rm -rf -- "$dir"
