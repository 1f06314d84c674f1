#!/usr/bin/env bash
# Stops a cluster scripts/slurm-up.sh started, by the PIDs it wrote (SIGTERM,
# up to 10 s, then SIGKILL), and removes its directory:
# scripts/slurm-down.sh DIR.
set -euo pipefail

dir=${1:?usage: scripts/slurm-down.sh DIR (the directory slurm-up.sh printed)}
[ -f "$dir/slurm.conf" ] || {
  echo "slurm-down: $dir/slurm.conf is missing; is $dir a directory slurm-up.sh made?" >&2
  exit 1
}

# A PID is only ours while it runs the daemon we started: it may have been
# reused since.
is_ours() {
  local pid=$1 program=$2
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$program" ]
}

# Jobs first: a stopped slurmd leaves its job steps running.
export SLURM_CONF=$dir/slurm.conf
jobs=$(squeue -h -o %i 2>/dev/null || true)
if [ -n "$jobs" ]; then
  # shellcheck disable=SC2086
  scancel --signal=KILL --full $jobs 2>/dev/null || true
  # shellcheck disable=SC2086
  scancel $jobs 2>/dev/null || true
  for _ in $(seq 150); do
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
    sleep 0.1
  done
fi

for program in slurmd slurmctld munged; do
  pid=$(cat "$dir/$program.pid" 2>/dev/null) || continue
  is_ours "$pid" "$program" || continue
  kill -TERM "$pid" 2>/dev/null || continue
  for _ in $(seq 100); do
    is_ours "$pid" "$program" || break
    sleep 0.1
  done
  if is_ours "$pid" "$program"; then
    echo "slurm-down: $program ($pid) did not stop in 10 s; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
done
rm -rf -- "$dir"
