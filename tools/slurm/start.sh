#!/usr/bin/env bash
# Configure and start a throw-away Slurm cluster on this one machine, for `gpudoctor fleet --slurm` tests in CI.
# It installs nothing: Debian's `slurm-wlm` and `munge` packages must already be there (.ci/run installs them).
# Runs as root without systemd: munged as the munge user, then slurmctld and one slurmd per node name, every slurmd
# on this host with its own port (`slurmd -N name`), so the fleet sees two nodes. Known to work with Debian 12's
# Slurm 22.05 using proctrack/linuxproc and task/none (no cgroup.conf: containers rarely delegate cgroups).
#
#   tools/slurm/start.sh          start (or reuse) the cluster; exits 0 once `srun -N2 hostname` answers
#   tools/slurm/start.sh stop     stop the daemons this script started
#
# The config goes to /etc/slurm/slurm.conf (where srun looks) only when that file is absent or was written by this
# script: a real cluster's config is never overwritten.
set -euo pipefail

NODES=(${GPUDOCTOR_SLURM_NODES:-node1 node2})
CONF=/etc/slurm/slurm.conf
STATE=/var/lib/gpudoctor-slurm
MARK="# written by gpudoctor tools/slurm/start.sh"

die() { echo "start-slurm: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

if [ "${1:-}" = stop ]; then
  for pidfile in "$STATE"/*.pid; do
    [ -e "$pidfile" ] && as_root kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  exit 0
fi

for tool in munged slurmctld slurmd srun sinfo; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || die "$tool not found: install the Debian packages slurm-wlm and munge"
done
[ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null || die "needs root (or password-less sudo) to start munged and slurmd"

if [ -e "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
  die "$CONF exists and was not written by this script; not touching a real cluster's config"
fi

host=$(hostname -s)
as_root mkdir -p "$STATE" /etc/slurm /run/munge /var/log/munge /var/lib/munge
as_root chown munge:munge /run/munge /var/log/munge /var/lib/munge
[ -s /etc/munge/munge.key ] || as_root /usr/sbin/mungekey --create --force
as_root chown munge:munge /etc/munge/munge.key
as_root chmod 0400 /etc/munge/munge.key

node_lines=""
port=17001
for node in "${NODES[@]}"; do
  # NodeHostname is this host for every node; the port tells the slurmds apart.
  node_lines+="NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 Port=$port CPUs=1 RealMemory=512 State=UNKNOWN"$'\n'
  port=$((port + 1))
done

as_root tee "$CONF" >/dev/null <<CONFIG
$MARK
ClusterName=gpudoctor-ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/slurmd-%n
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd-%n.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd-%n.log
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
$node_lines
PartitionName=debug Nodes=ALL Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONFIG

if ! as_root pgrep -u munge -x munged >/dev/null; then
  as_root runuser -u munge -- /usr/sbin/munged
fi
as_root mkdir -p "$STATE/ctld"
if ! as_root pgrep -x slurmctld >/dev/null; then
  as_root /usr/sbin/slurmctld
fi
for node in "${NODES[@]}"; do
  as_root mkdir -p "$STATE/slurmd-$node"
  if ! as_root pgrep -f "slurmd -N $node\$" >/dev/null; then
    as_root /usr/sbin/slurmd -N "$node"
  fi
done

# Wait until every node is idle and a job step really runs on all of them.
for _ in $(seq 1 60); do
  if [ "$(sinfo -h -o '%t' -t idle,mix,alloc 2>/dev/null | wc -l)" -ge 1 ] \
     && [ "$(sinfo -h -N -o '%N %t' 2>/dev/null | grep -cE ' (idle|mix|alloc)$')" -ge "${#NODES[@]}" ] \
     && timeout 20 srun -N"${#NODES[@]}" --ntasks-per-node=1 -t 1 hostname >/dev/null 2>&1; then
    echo "start-slurm: ${#NODES[@]} node(s) answering: $(sinfo -h -N -o '%N' | sort -u | tr '\n' ' ')"
    exit 0
  fi
  sleep 1
done
sinfo -N -l >&2 || true
tail -n 20 "$STATE"/slurmctld.log "$STATE"/slurmd-*.log >&2 || true
die "the cluster did not answer within 60 s"
