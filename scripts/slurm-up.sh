#!/usr/bin/env bash
# Starts a throw-away single-node Slurm cluster for tests: slurmctld, slurmd
# and a munged of its own, all on loopback, with 4 fake GPUs (character
# devices made with mknod, which gres/gpu accepts like real ones), in a new
# temporary directory. Prints the directory; inside it `slurm.conf` is the
# cluster's configuration (export SLURM_CONF=DIR/slurm.conf before calling
# sbatch, squeue, ...), `*.pid` the daemons' PIDs and `*.log` their logs.
# Stop it with scripts/slurm-down.sh DIR.
#
# Must run as root (slurmd starts jobs as their users; the fake GPUs need
# mknod). Needs the Debian packages slurm-wlm and munge. The controller and
# node daemons listen on free loopback ports, and munged on a socket in the
# directory, so nothing outside it is touched and a system Slurm keeps
# running. Settings: VERNIER_SLURM_GPUS (4), VERNIER_SLURM_CPUS (8: may
# exceed the real cores).
set -euo pipefail

dir=
fail() {
  echo "slurm-up: $*" >&2
  # Stop whatever already started, and keep the logs for a look.
  if [ -n "$dir" ]; then
    keep=$(mktemp -d "${TMPDIR:-/tmp}/vernier-slurm-failed.XXXXXX")
    cp "$dir"/*.log "$dir"/munge/*.log "$keep"/ 2>/dev/null || true
    "$(dirname "$0")/slurm-down.sh" "$dir" >/dev/null 2>&1 || true
    echo "slurm-up: logs kept in $keep" >&2
  fi
  exit 1
}

[ "$(id -u)" = 0 ] || fail "run as root (slurmd and the fake GPU devices need it)"
for program in slurmctld slurmd munged mungekey sinfo; do
  command -v "$program" >/dev/null || [ -x "/usr/sbin/$program" ] ||
    fail "$program is missing; run scripts/install-deps.sh (Debian packages slurm-wlm munge)"
done
id munge >/dev/null 2>&1 || fail "user 'munge' does not exist; install the Debian package munge"

gpus=${VERNIER_SLURM_GPUS:-4}
cpus=${VERNIER_SLURM_CPUS:-8}
node=$(hostname -s)

dir=$(mktemp -d "${TMPDIR:-/tmp}/vernier-slurm.XXXXXX")
chmod 755 "$dir"
mkdir -p "$dir/ctld" "$dir/spool" "$dir/dev" "$dir/munge"
export SLURM_CONF=$dir/slurm.conf

# gres/gpu wants character devices: major 1, minor 3 is /dev/null.
for i in $(seq 0 $((gpus - 1))); do mknod -m 666 "$dir/dev/nvidia$i" c 1 3; done

# Below the ephemeral range (see free-ports.sh): scripts/slurmctld-restart.sh
# starts slurmctld again on its port.
ports=$("$(dirname "$0")/free-ports.sh" 2) || fail "no free loopback ports for slurmctld and slurmd"
ctld_port=$(sed -n 1p <<<"$ports")
slurmd_port=$(sed -n 2p <<<"$ports")

munge_socket=$dir/munge/munge.socket
cat >"$dir/slurm.conf" <<CONF
ClusterName=vernier
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CredType=cred/munge
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
GresTypes=gpu
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
KillWait=5
MinJobAge=600
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=4000 Gres=gpu:$gpus State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
echo "NodeName=$node Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]" >"$dir/gres.conf"

# A munged of our own: its key, socket, PID and log stay in the directory.
mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
  fail "mungekey could not create $dir/munge/munge.key"
chown -R munge:munge "$dir/munge"
chmod 0755 "$dir/munge"
chmod 0400 "$dir/munge/munge.key"
runuser -u munge -- munged --socket="$munge_socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed" ||
  fail "munged did not start"
cp "$dir/munge/munged.pid" "$dir/munged.pid"
for _ in $(seq 50); do
  munge --socket="$munge_socket" -n </dev/null | unmunge --socket="$munge_socket" >/dev/null 2>&1 && break
  sleep 0.1
done

# -c: a clean start, no jobs recovered from an earlier state.
/usr/sbin/slurmctld -c || fail "slurmctld did not start"
/usr/sbin/slurmd || fail "slurmd did not start"
state=
for _ in $(seq 300); do
  state=$(sinfo -h -N -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] ||
  fail "node $node is '${state:-unknown}', not idle, after 30 s"
echo "$dir"
