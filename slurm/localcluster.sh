#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for tests and demos of `hydra/launcher=slurm`.
#
#   slurm/localcluster.sh start  [DIR]   start munged + slurmctld + slurmd, wait until the node
#                                        is idle, print the environment to export (stdout)
#   slurm/localcluster.sh stop   [DIR]   `scontrol shutdown`, stop munged, wait until all are gone
#   slurm/localcluster.sh status [DIR]   exit 0 and print the environment when the cluster is up
#
# Everything the cluster writes (slurm.conf, munge key and socket, state, spool, logs, pid files)
# lives under DIR (default: ${MONITORBENCH_OUTPUTS:-<repo>/outputs}/slurm-local), so several
# clusters can run side by side (each picks free ports) and nothing touches /etc or /run.
# Both start and stop are idempotent. Needs root (SlurmUser=root) and Debian's slurm-wlm + munge.
#
# Use it: eval "$(slurm/localcluster.sh start)"; python -m monitorbench -m ... hydra/launcher=slurm
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmd="${1:-}"
DIR="${2:-${MONITORBENCH_OUTPUTS:-$REPO/outputs}/slurm-local}"
case "$cmd" in
  start | stop | status) ;;
  *) echo "usage: $0 start|stop|status [DIR]" >&2; exit 2 ;;
esac
if [ "$cmd" = start ]; then mkdir -p "$DIR"; fi
if [ ! -d "$DIR" ]; then
  echo "localcluster: no cluster directory $DIR (not running)" >&2
  [ "$cmd" = stop ] && exit 0 || exit 3
fi
DIR="$(cd "$DIR" && pwd)"
CONF="$DIR/slurm.conf"
MUNGE="$DIR/munge"
START_TIMEOUT="${LOCALCLUSTER_TIMEOUT:-60}"

say() { echo "localcluster: $*" >&2; }
die() { say "$*"; exit 1; }

print_env() {
  # Stdout carries only these lines, so `eval "$(localcluster.sh start)"` works. slurm/bin holds
  # the sacct stand-in that submitit needs on a cluster without accounting.
  echo "export SLURM_CONF=$CONF"
  echo "export PATH=$REPO/slurm/bin:\$PATH"
}

daemon_running() {  # daemon_running PID: one of our daemons, not a reused pid, not a zombie
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  [[ "$stat" =~ ^[0-9]+\ \((munged|slurmctld|slurmd)\)\ ([A-Z]) ]] && [ "${BASH_REMATCH[2]}" != Z ]
}

pid_alive() {  # pid_alive PIDFILE: the daemon the file names is running
  [ -s "$1" ] && daemon_running "$(cat "$1" 2>/dev/null)"
}

node_state() {
  SLURM_CONF="$CONF" scontrol show node localhost -o 2>/dev/null \
    | sed -n 's/.*State=\([^ ]*\).*/\1/p'
}

is_up() {
  pid_alive "$MUNGE/munged.pid" && pid_alive "$DIR/slurmctld.pid" && pid_alive "$DIR/slurmd.pid" \
    && [[ "$(node_state)" == IDLE* || "$(node_state)" == MIXED* || "$(node_state)" == ALLOCATED* ]]
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

write_conf() {
  local ctld_port slurmd_port cpus mem
  ctld_port="$(free_port)"
  slurmd_port="$(free_port)"
  while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port="$(free_port)"; done
  cpus="$(nproc)"
  # Leave the OS a little memory; Slurm refuses a node that reports less than RealMemory.
  mem="$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.85}' /proc/meminfo)"
  cat > "$CONF" <<EOF
# Written by slurm/localcluster.sh: a one-node cluster on localhost, no accounting, no cgroups.
ClusterName=monitorbench-local
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Short grace between SIGTERM and SIGKILL so cancel/requeue tests do not wait (default 30 s).
KillWait=2
# Keep finished jobs visible to 'scontrol show job' (the sacct stand-in) for 10 minutes.
MinJobAge=600
NodeName=localhost CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
  pid_alive "$MUNGE/munged.pid" && return 0
  mkdir -p "$MUNGE"
  # munged refuses a socket directory (or parent) that others can write to, and a readable key.
  chmod 755 "$DIR" "$MUNGE"
  if [ ! -s "$MUNGE/munge.key" ]; then
    dd if=/dev/urandom of="$MUNGE/munge.key" bs=1024 count=1 status=none
  fi
  chmod 400 "$MUNGE/munge.key"
  rm -f "$MUNGE/munge.socket"
  munged --socket="$MUNGE/munge.socket" --key-file="$MUNGE/munge.key" \
    --log-file="$MUNGE/munged.log" --pid-file="$MUNGE/munged.pid" \
    --seed-file="$MUNGE/munged.seed" --force \
    || die "munged failed to start; see $MUNGE/munged.log"
}

start() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
    || die "slurmctld, slurmd and munged are needed: apt-get install slurm-wlm munge"
  if is_up; then
    say "already running in $DIR"
    print_env
    return 0
  fi
  # A half-started cluster (a daemon died) is stopped first, then started clean.
  stop_daemons
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
  write_conf
  start_munge
  SLURM_CONF="$CONF" slurmctld -f "$CONF" || die "slurmctld failed; see $DIR/log/slurmctld.log"
  SLURM_CONF="$CONF" slurmd -f "$CONF" -N localhost || die "slurmd failed; see $DIR/log/slurmd.log"
  local waited=0
  until [[ "$(node_state)" == IDLE* ]]; do
    if [ "$waited" -ge $((START_TIMEOUT * 5)) ]; then
      say "node not idle after ${START_TIMEOUT}s (state: $(node_state)); logs in $DIR/log"
      stop_daemons
      exit 1
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  say "up in $DIR (node idle after ~$((waited / 5))s)"
  print_env
}

wait_gone() {  # wait_gone PIDFILE SECONDS: wait for the daemon to exit, SIGKILL it after that
  local f="$1" n=$(( $2 * 10 )) pid
  pid="$(cat "$f" 2>/dev/null)" || return 0  # the daemon removed its pid file as it exited
  while daemon_running "$pid" && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
  if daemon_running "$pid"; then
    say "pid $pid ($f) still alive; sending SIGKILL"
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

cancel_jobs() {
  # slurmd leaves running job steps behind when it shuts down: cancel every job of this cluster
  # first and wait (KillWait is 2 s) until slurmctld reports none left.
  pid_alive "$DIR/slurmctld.pid" || return 0
  [ -n "$(SLURM_CONF="$CONF" squeue -h -o %A 2>/dev/null)" ] || return 0
  SLURM_CONF="$CONF" scancel --user="$(id -un)" 2>/dev/null || true
  local n=300
  while [ -n "$(SLURM_CONF="$CONF" squeue -h -o %A 2>/dev/null)" ] && [ "$n" -gt 0 ]; do
    sleep 0.1; n=$((n - 1))
  done
  [ "$n" -gt 0 ] || say "jobs still listed after 30 s: $(SLURM_CONF="$CONF" squeue -h -o '%A %T')"
}

stop_daemons() {
  cancel_jobs
  if pid_alive "$DIR/slurmctld.pid" || pid_alive "$DIR/slurmd.pid"; then
    # Shuts down slurmctld and every slurmd it knows; falls back to signals below.
    SLURM_CONF="$CONF" timeout 20 scontrol shutdown >/dev/null 2>&1 || true
  fi
  for d in slurmctld slurmd; do
    pid_alive "$DIR/$d.pid" && kill "$(cat "$DIR/$d.pid" 2>/dev/null)" 2>/dev/null || true
    wait_gone "$DIR/$d.pid" 15
  done
  if pid_alive "$MUNGE/munged.pid"; then
    kill "$(cat "$MUNGE/munged.pid" 2>/dev/null)" 2>/dev/null || true
  fi
  wait_gone "$MUNGE/munged.pid" 10
}

case "$cmd" in
  start) start ;;
  stop) stop_daemons; say "stopped ($DIR)" ;;
  status)
    if is_up; then say "up in $DIR (node $(node_state))"; print_env
    else say "not running in $DIR"; exit 3; fi ;;
esac
