#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, for the test of profiles/slurm (docs/cluster.md):
# munge, MariaDB, slurmdbd, slurmctld and slurmd on 127.0.0.1, with accounting (sacct) through
# slurmdbd. Every config, state file, pid and log is in one folder (MariaDB runs with
# --no-defaults, munged and the SLURM daemons with explicit paths), with one exception:
# /etc/slurm/slurm.conf, the path SLURM's clients are compiled with, is a symlink to the
# folder's slurm.conf while the cluster runs. The executor plugin's job step removes
# SLURM_CONF from the environment of the `srun` it runs inside each job
# (snakemake-executor-plugin-slurm-jobstep 0.6.1), so that srun finds only that path. `start`
# refuses an /etc/slurm/slurm.conf it did not make; `stop` removes the symlink it made.
#
#   .ci/slurm-cluster.sh install      Debian's packages (slurm-wlm 22.05, slurmdbd,
#                                     mariadb-server, munge), only those missing
#   .ci/slurm-cluster.sh start DIR    install what is missing, write the configs into a fresh
#                                     DIR, start the five daemons, wait until the node is idle
#                                     and sacct answers; on failure print the daemons' log
#                                     lines that say why, stop what it started, exit 1
#   .ci/slurm-cluster.sh stop DIR     cancel every job, stop each daemon `start` recorded in
#                                     DIR/pids (TERM, then KILL after 20 s), last started first
#   .ci/slurm-cluster.sh status DIR   the daemons of DIR that run ("NAME PID" a line)
#   .ci/slurm-cluster.sh why DIR      the daemons' error lines and the end of each log
#
# Clients find the cluster through /etc/slurm/slurm.conf (or SLURM_CONF=DIR/etc/slurm.conf).
# The ports are not SLURM's or MariaDB's defaults, so a database or cluster already on this
# machine is left alone.
set -euo pipefail

MYSQL_PORT=16306
SLURMCTLD_PORT=16817
SLURMD_PORT=16818
SLURMDBD_PORT=16819
CLUSTER=geval-ci
SYSTEM_CONF=/etc/slurm/slurm.conf # the clients' compiled-in path (see above)
DAEMONS=(munged mariadbd slurmdbd slurmctld slurmd) # start order; stop goes backwards
TIMEOUT=${SLURM_CLUSTER_TIMEOUT:-90}                  # seconds for each daemon to answer

usage() {
    sed -n '2,28p' "$0" >&2
    exit 2
}

install() {
    local missing=()
    for binary in munged mariadbd mariadb-install-db slurmdbd slurmctld slurmd sbatch sacct; do
        command -v "$binary" >/dev/null || missing+=("$binary")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    echo "slurm-cluster: installing (missing: ${missing[*]})" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm slurmdbd mariadb-server munge \
        >/dev/null
}

running() { # running PIDFILE: the daemon recorded in PIDFILE (named after it) runs
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 1
    kill -0 "$pid" 2>/dev/null && grep -q "$(basename "$1" .pid)" "/proc/$pid/cmdline" 2>/dev/null
}

alive() { running "$DIR/pids/$1.pid"; } # alive NAME: the daemon NAME of DIR runs

status() { # the daemons of DIR that run, one "NAME PID" a line
    local file
    for file in "$DIR"/pids/*.pid; do
        if running "$file"; then
            echo "$(basename "$file" .pid) $(cat "$file")"
        fi
    done
}

launch() { # launch NAME COMMAND...: start a daemon in the foreground, log to DIR/log/NAME.log
    local name=$1
    shift
    "$@" >"$DIR/log/$name.log" 2>&1 </dev/null &
    echo $! >"$DIR/pids/$name.pid"
}

wait_for() { # wait_for NAME WHAT COMMAND...: until COMMAND succeeds, while NAME runs
    local name=$1 what=$2 deadline=$((SECONDS + TIMEOUT))
    shift 2
    until timeout 10 "$@" >/dev/null 2>&1; do
        if ! alive "$name"; then
            echo "slurm-cluster: $name exited before $what" >&2
            return 1
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "slurm-cluster: $name: no $what after $TIMEOUT s" >&2
            return 1
        fi
        sleep 1
    done
}

port_free() { # port_free PORT: nothing listens on 127.0.0.1:PORT
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

write_configs() {
    local node=$1 password=$2 hardware
    # The node as slurmd sees it: its real CPUs, sockets, cores and memory.
    hardware=$(slurmd -C | head -1 | sed -e 's/^NodeName=[^ ]* //')
    cat >"$DIR/etc/slurm.conf" <<EOF
# Written by .ci/slurm-cluster.sh: a one-node cluster for tests.
ClusterName=$CLUSTER
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/run/munge.socket
CredType=cred/munge
SlurmctldPort=$SLURMCTLD_PORT
SlurmdPort=$SLURMD_PORT
StateSaveLocation=$DIR/state/slurmctld
SlurmdSpoolDir=$DIR/state/slurmd
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
# No cgroups inside the sandbox: processes are tracked through /proc, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Accounting (sacct, which the tests read the jobs' states and steps with) through slurmdbd
# (its connection reads the munge socket from AccountingStoragePass, not AuthInfo), with
# the job comments the plugin writes (rule and wildcards). /proc, sampled every 5 s, gives
# each job's MaxRSS, and a job above its memory request is killed, as cgroups would.
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$SLURMDBD_PORT
AccountingStoragePass=$DIR/run/munge.socket
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
JobAcctGatherParams=OverMemoryKill
AccountingStoreFlags=job_comment
# A finished job stays in slurmctld (squeue, the profile's status command) for 300 s, Slurm's
# default, set here because the profile relies on it: above the plugin's longest gap between
# status checks (180 s) and 3 x its first check's delay (below that it falls back to sacct).
MinJobAge=300
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
SchedulerType=sched/backfill
NodeName=$node NodeAddr=127.0.0.1 $hardware State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    # slurmdbd reads slurmdbd.conf beside SLURM_CONF, and only if no one else can read it.
    (
        umask 077
        cat >"$DIR/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$DIR/run/munge.socket
DbdHost=$node
DbdAddr=127.0.0.1
DbdPort=$SLURMDBD_PORT
SlurmUser=root
PidFile=$DIR/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$MYSQL_PORT
StorageUser=slurm
StoragePass=$password
StorageLoc=slurm_acct_db
EOF
    )
}

link_conf() { # /etc/slurm/slurm.conf -> DIR/etc/slurm.conf, unless it is someone else's
    local other
    if [ -L "$SYSTEM_CONF" ] && [ -e "$SYSTEM_CONF" ]; then # a dangling link is replaced
        other=$(dirname "$(dirname "$(readlink "$SYSTEM_CONF")")")
        if [ ! -f "$other/.slurm-cluster" ] || [ -n "$(DIR=$other status)" ]; then
            echo "slurm-cluster: $SYSTEM_CONF points to $other, not a stopped cluster of" \
                "this script; not replacing it" >&2
            return 1
        fi
    elif [ -e "$SYSTEM_CONF" ] && [ ! -L "$SYSTEM_CONF" ]; then
        echo "slurm-cluster: $SYSTEM_CONF exists and is not this script's; not replacing it" >&2
        return 1
    fi
    mkdir -p "$(dirname "$SYSTEM_CONF")"
    ln -sfn "$DIR/etc/slurm.conf" "$SYSTEM_CONF"
}

unlink_conf() { # remove /etc/slurm/slurm.conf if it is this folder's symlink
    if [ "$(readlink "$SYSTEM_CONF" 2>/dev/null)" = "$DIR/etc/slurm.conf" ]; then
        rm -f "$SYSTEM_CONF"
    fi
}

start() {
    install
    local node password port
    node=$(hostname -s)
    for name in "${DAEMONS[@]}"; do
        if alive "$name"; then
            echo "slurm-cluster: $name already runs from $DIR; stop it first" >&2
            exit 1
        fi
    done
    for port in $MYSQL_PORT $SLURMCTLD_PORT $SLURMD_PORT $SLURMDBD_PORT; do
        if ! port_free "$port"; then
            echo "slurm-cluster: port $port on 127.0.0.1 is taken (another cluster?)" >&2
            exit 1
        fi
    done
    if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR")" ] && [ ! -f "$DIR/.slurm-cluster" ]; then
        echo "slurm-cluster: $DIR is not empty and not a folder of this script; refusing" >&2
        exit 1
    fi
    rm -rf "$DIR"
    mkdir -p "$DIR"/{etc,run,log,pids,state/slurmctld,state/slurmd,state/mysql}
    touch "$DIR/.slurm-cluster"
    trap 'failed' EXIT
    password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    write_configs "$node" "$password"
    link_conf
    export SLURM_CONF=$DIR/etc/slurm.conf

    mungekey --create --keyfile="$DIR/etc/munge.key"
    # --force: DIR may lie in a folder only root can enter (pytest's, mktemp's), which munged
    # refuses for a socket that every user should reach; only root uses this one.
    launch munged munged --force --foreground --key-file="$DIR/etc/munge.key" \
        --socket="$DIR/run/munge.socket" --pid-file="$DIR/run/munged.pid" \
        --seed-file="$DIR/state/munged.seed"
    wait_for munged "credential" bash -c \
        "munge -S '$DIR/run/munge.socket' -n | unmunge -S '$DIR/run/munge.socket'"

    local mysql=(mariadb --no-defaults --socket="$DIR/run/mysql.sock" -u root)
    mariadb-install-db --no-defaults --user=root --datadir="$DIR/state/mysql" \
        --auth-root-authentication-method=socket --skip-test-db \
        >"$DIR/log/mariadb-install-db.log" 2>&1
    launch mariadbd mariadbd --no-defaults --user=root --datadir="$DIR/state/mysql" \
        --socket="$DIR/run/mysql.sock" --port=$MYSQL_PORT --bind-address=127.0.0.1 \
        --skip-name-resolve --pid-file="$DIR/run/mariadbd.pid" \
        --skip-log-bin --innodb-buffer-pool-size=512M \
        --innodb-lock-wait-timeout=900
    wait_for mariadbd "answer on its socket" "${mysql[@]}" -e "SELECT 1"
    "${mysql[@]}" -e "CREATE DATABASE slurm_acct_db;
        CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$password';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"

    launch slurmdbd slurmdbd -D
    wait_for slurmdbd "answer to sacctmgr" sacctmgr -n list cluster
    sacctmgr -i add cluster "$CLUSTER" >/dev/null

    launch slurmctld slurmctld -D -f "$SLURM_CONF"
    wait_for slurmctld "answer to scontrol ping" bash -c "scontrol ping | grep -q UP"
    launch slurmd slurmd -D -f "$SLURM_CONF" -N "$node"
    wait_for slurmd "idle node" bash -c "sinfo -h -n '$node' -o %T | grep -qx idle"
    wait_for slurmdbd "answer to sacct" sacct -n -X
    trap - EXIT
    echo "slurm-cluster: node $node idle ($(sinfo -h -n "$node" -o '%c CPUs, %m MB')), \
accounting through slurmdbd; logs in $DIR/log" >&2
    echo "export SLURM_CONF=$SLURM_CONF"
}

failed() {
    echo "slurm-cluster: the cluster did not start; what the daemons said:" >&2
    why >&2
    stop
    exit 1
}

why() {
    # Lines every start prints, never the cause: the MPI plugins SLURM probes (no PMIx
    # library, MpiDefault=none) and slurmctld's missing state files (a fresh DIR).
    local benign='pmix|MPI: Cannot create context|state file|Trying backup state|max_open_files'
    local log
    for log in "$DIR"/log/*.log; do
        [ -s "$log" ] || continue
        echo "--- $log: errors"
        grep -iE 'error|fatal|fail|denied|refus|cannot|unable|abort' "$log" |
            grep -vE "$benign" | tail -n 15 || true
        echo "--- $log: last lines"
        tail -n 5 "$log"
    done
}

stop() {
    local name pid waited
    export SLURM_CONF=$DIR/etc/slurm.conf
    if alive slurmctld; then # jobs first, so that no slurmstepd outlives slurmd
        scancel --full --quiet "--cluster=$CLUSTER" --user=root 2>/dev/null || true
        waited=0
        while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ "$waited" -lt 30 ]; do
            sleep 1
            waited=$((waited + 1))
        done
    fi
    for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do
        name=${DAEMONS[i]}
        alive "$name" || continue
        pid=$(cat "$DIR/pids/$name.pid")
        kill -TERM "$pid"
        waited=0
        while alive "$name" && [ "$waited" -lt 20 ]; do
            sleep 1
            waited=$((waited + 1))
        done
        if alive "$name"; then
            echo "slurm-cluster: $name (pid $pid) ignored TERM for 20 s; killing it" >&2
            kill -KILL "$pid"
        fi
    done
    unlink_conf
}

[ $# -ge 1 ] || usage
command=$1
case $command in
install) install ;;
start | stop | status | why)
    [ $# -eq 2 ] || usage
    DIR=$(realpath -m "$2")
    "$command"
    ;;
*) usage ;;
esac
