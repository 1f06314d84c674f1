#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server for tests and benchmarks: initdb in a
# new temporary directory, listening on 127.0.0.1 at a free port only, fsync
# on. Prints the directory; inside it `url` holds the connection string
# (postgresql://vernier@127.0.0.1:PORT/postgres, superuser vernier, trust
# authentication on loopback) and `pid` the postmaster's PID.
# Stop it with scripts/postgres-down.sh DIR; scripts/postgres-restart.sh DIR
# stops and starts it again (fault injection) with the same data and port.
#
# As root the server runs as the Debian `postgres` user (from the postgresql
# package), since PostgreSQL refuses to run as root; otherwise as the caller.
set -euo pipefail

fail() {
  echo "postgres-up: $*" >&2
  exit 1
}

bin_dir=${VERNIER_POSTGRES_BIN:-}
if [ -z "$bin_dir" ]; then
  # The newest installed server version.
  bin_dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
fi
[ -x "$bin_dir/initdb" ] && [ -x "$bin_dir/pg_ctl" ] ||
  fail "no PostgreSQL server binaries in '${bin_dir:-/usr/lib/postgresql/*/bin}'; run scripts/install-deps.sh (Debian package postgresql)"

run_as=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || fail "user 'postgres' does not exist; install the Debian package postgresql"
  run_as=(runuser -u postgres --)
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/vernier-postgres.XXXXXX")
chmod 755 "$dir"
if [ ${#run_as[@]} -gt 0 ]; then chown postgres: "$dir"; fi

"${run_as[@]}" "$bin_dir/initdb" -D "$dir/data" --username=vernier --auth=trust \
  --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
  fail "initdb failed; see $dir/initdb.log: $(tail -n 5 "$dir/initdb.log")"

started=false
for _attempt in 1 2 3 4 5; do
  # Below the ephemeral range (see free-ports.sh): scripts/postgres-restart.sh
  # starts the server again on its port. Another program may still take it
  # before the server binds, so the start is retried.
  port=$("$(dirname "$0")/free-ports.sh") || fail "no free loopback port for the server"
  # Unix sockets go in the directory too, so nothing outside it is touched.
  if "${run_as[@]}" "$bin_dir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on -c synchronous_commit=on -c max_connections=300" \
    >>"$dir/pg_ctl.log" 2>&1; then
    started=true
    break
  fi
done
$started || fail "the server did not start; see $dir/server.log: $(tail -n 5 "$dir/server.log" 2>/dev/null)"

head -n 1 "$dir/data/postmaster.pid" >"$dir/pid"
# What scripts/postgres-restart.sh needs to start it again, at the same port.
echo "$bin_dir" >"$dir/bin"
echo "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on -c synchronous_commit=on -c max_connections=300" >"$dir/start-options"
echo "postgresql://vernier@127.0.0.1:$port/postgres" >"$dir/url"
echo "$dir"
