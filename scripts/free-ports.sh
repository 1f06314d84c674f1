#!/usr/bin/env bash
# Prints N (default 1) distinct loopback TCP ports, one a line, that are free
# now, from 10000 to 19999 and below the kernel's ephemeral range
# (/proc/sys/net/ipv4/ip_local_port_range; where that range leaves no room
# below it, from 10000 to 19999 with a warning): scripts/free-ports.sh [N].
#
# For the test servers that scripts/postgres-up.sh and scripts/slurm-up.sh
# start. A port from the ephemeral range (what binding port 0 gives) is free
# only until a program's outgoing connection or port-0 bind takes it: the
# test suite makes thousands of those. A server that fault-injection tests
# stop and start again on the same port (scripts/postgres-restart.sh,
# scripts/slurmctld-restart.sh) could then not bind it any more. No port
# below the range is given out by the kernel, so only a program that asks
# for that very port can take it.
set -euo pipefail

count=${1-1}
[[ "$count" =~ ^[1-9][0-9]{0,2}$ ]] || {
  echo "free-ports: N must be a whole number from 1 to 999, not '$count'" >&2
  exit 1
}

exec python3 - "$count" <<'PY'
import random
import socket
import sys

count = int(sys.argv[1])
range_file = "/proc/sys/net/ipv4/ip_local_port_range"
try:
    with open(range_file) as f:
        ephemeral_low = int(f.read().split()[0])
except (OSError, ValueError, IndexError):
    ephemeral_low = 32768  # Linux's default
# Above the ports system services usually own, below the ones the tests give
# their trainers (20000 and up: tests/support/server_process.h,
# WithReplicaPorts) and below the ephemeral range.
first, last = 10000, min(19999, ephemeral_low - 1)
if last - first < 1000:
    # A kernel whose ephemeral range leaves no room below it: the ports are
    # still free now, only not safe from being taken while a server is down.
    print(f"free-ports: the ephemeral range of {range_file} starts at {ephemeral_low}, "
          f"so the ports from {first} to 19999 may be given out by the kernel too",
          file=sys.stderr)
    last = 19999

held = []
candidates = random.sample(range(first, last + 1), min(4 * count + 100, last - first + 1))
for port in candidates:
    if len(held) == count:
        break
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        # No SO_REUSEADDR: a port with connections in TIME_WAIT counts as
        # taken, like one with a listener.
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    held.append(s)
if len(held) < count:
    sys.exit(f"free-ports: found only {len(held)} of {count} free ports in {first}-{last}")
for s in held:
    print(s.getsockname()[1])
    s.close()
PY
