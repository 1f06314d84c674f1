#!/usr/bin/env bash
# Stops and starts a server scripts/postgres-up.sh started, keeping its data
# directory and port, for fault-injection tests and benchmarks:
#   scripts/postgres-restart.sh DIR stop [fast|immediate]   stop it (default fast)
#   scripts/postgres-restart.sh DIR start                   start it again
#   scripts/postgres-restart.sh DIR restart [fast|immediate] [SECONDS]
#                                    stop, stay down SECONDS (default 0), start
# fast: sessions are rolled back and the server checkpoints (SQLSTATE 57P01
# to clients); immediate: the postmaster and its backends quit at once, as in
# a crash, and the next start recovers from the WAL. `pid` is rewritten at
# each start. scripts/postgres-down.sh DIR still removes it all.
set -euo pipefail

fail() {
  echo "postgres-restart: $*" >&2
  exit 1
}

dir=${1:?usage: scripts/postgres-restart.sh DIR stop|start|restart [fast|immediate] [SECONDS]}
action=${2:?usage: scripts/postgres-restart.sh DIR stop|start|restart [fast|immediate] [SECONDS]}
[ -f "$dir/bin" ] && [ -f "$dir/start-options" ] ||
  fail "$dir/bin or $dir/start-options is missing; is $dir a directory postgres-up.sh made (by this version)?"
bin_dir=$(cat "$dir/bin")
run_as=()
if [ "$(id -u)" = 0 ]; then run_as=(runuser -u postgres --); fi

stop() {
  local mode=${1:-fast}
  case "$mode" in fast | immediate) ;; *) fail "shutdown mode '$mode' is not fast or immediate" ;; esac
  "${run_as[@]}" "$bin_dir/pg_ctl" -D "$dir/data" -m "$mode" -w -t 60 stop >>"$dir/pg_ctl.log" 2>&1 ||
    fail "pg_ctl stop -m $mode failed; see $dir/pg_ctl.log: $(tail -n 5 "$dir/pg_ctl.log")"
}

start() {
  # The port may be taken meanwhile by a client's outgoing connection only
  # rarely; a few tries cover it.
  for _attempt in 1 2 3 4 5; do
    if "${run_as[@]}" "$bin_dir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
      -o "$(cat "$dir/start-options")" >>"$dir/pg_ctl.log" 2>&1; then
      head -n 1 "$dir/data/postmaster.pid" >"$dir/pid"
      return 0
    fi
    sleep 1
  done
  fail "the server did not start again; see $dir/server.log: $(tail -n 5 "$dir/server.log" 2>/dev/null)"
}

case "$action" in
  stop) stop "${3:-fast}" ;;
  start) start ;;
  restart)
    stop "${3:-fast}"
    sleep "${4:-0}"
    start
    ;;
  *) fail "action '$action' is not stop, start or restart" ;;
esac
