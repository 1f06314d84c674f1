#!/usr/bin/env bash
# Stops and starts the slurmctld of a cluster scripts/slurm-up.sh started,
# keeping its configuration and state, for fault-injection tests:
#   scripts/slurmctld-restart.sh DIR stop              stop it (SIGTERM, then waits)
#   scripts/slurmctld-restart.sh DIR start             start it again
#   scripts/slurmctld-restart.sh DIR restart [SECONDS] stop, stay down SECONDS
#                                                      (default 0), start
# slurmd and the jobs' steps keep running meanwhile. The new slurmctld starts
# without -c, so it recovers the jobs from its state directory, as after a
# routine restart; it rewrites DIR/slurmctld.pid, so scripts/slurm-down.sh DIR
# still stops it all.
set -euo pipefail

fail() {
  echo "slurmctld-restart: $*" >&2
  exit 1
}

usage="usage: scripts/slurmctld-restart.sh DIR stop|start|restart [SECONDS]"
dir=${1:?$usage}
action=${2:?$usage}
[ -f "$dir/slurm.conf" ] || fail "$dir/slurm.conf is missing; is $dir a directory slurm-up.sh made?"
export SLURM_CONF=$dir/slurm.conf

is_slurmctld() {
  [ "$(cat "/proc/$1/comm" 2>/dev/null)" = slurmctld ]
}

stop() {
  local pid
  pid=$(cat "$dir/slurmctld.pid" 2>/dev/null) || fail "$dir/slurmctld.pid is missing: is slurmctld running?"
  is_slurmctld "$pid" || fail "PID $pid in $dir/slurmctld.pid is not slurmctld"
  kill -TERM "$pid"
  # It saves its state before it exits.
  for _ in $(seq 300); do
    is_slurmctld "$pid" || return 0
    sleep 0.1
  done
  fail "slurmctld ($pid) did not stop in 30 s"
}

start() {
  /usr/sbin/slurmctld >>"$dir/slurmctld-restart.log" 2>&1 ||
    fail "slurmctld did not start; see $dir/slurmctld.log: $(tail -n 5 "$dir/slurmctld.log" 2>/dev/null)"
  for _ in $(seq 300); do
    scontrol ping 2>/dev/null | grep -q "is UP" && return 0
    sleep 0.1
  done
  fail "slurmctld does not answer 30 s after it started; see $dir/slurmctld.log"
}

case "$action" in
  stop) stop ;;
  start) start ;;
  restart)
    stop
    sleep "${3:-0}"
    start
    ;;
  *) fail "action '$action' is not stop, start or restart" ;;
esac
