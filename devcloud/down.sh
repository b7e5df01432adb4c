#!/bin/bash
# Stop what devcloud/up.sh started (by the PIDs in $DEVCLOUD_DIR/run).
#   devcloud/down.sh          stop; data is kept and up.sh restarts it
#   devcloud/down.sh --wipe   also delete every file of the devcloud
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
# One devcloud operation at a time (a CI teardown and a developer's up
# must not interleave); the lock lives outside $DEVCLOUD_DIR, which a wipe removes.
exec 9> "${DEVCLOUD_DIR}.lock"
flock 9

stop_pid() {  # NAME PID [TIMEOUT] [SIGNAL]
  local name=$1 pid=$2 t=${3:-30} sig=${4:-TERM} i
  alive "$pid" || return 0
  kill -"$sig" "$pid" 2>/dev/null
  for i in $(seq 1 $((t*4))); do alive "$pid" || { log "stopped $name"; return 0; }; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null; log "killed $name (pid $pid)"
}

# Guests first: our libvirtd's domains (qemu and swtpm go with them).
if [ -S "$LIBVIRT_SOCK" ]; then
  for d in $(virsh -c "$LIBVIRT_URI" list --name 2>/dev/null); do
    virsh -c "$LIBVIRT_URI" destroy "$d" > /dev/null 2>&1 && log "destroyed domain $d"
  done
fi
# Then the services, all at once: each is a client of the database,
# RabbitMQ and Ceph (which go after them), none of another's shutdown, and
# one by one they took a minute (a few seconds each, and 2026.x's
# nova-compute sits on SIGTERM for 30-40 s). nova-compute gets 5 s before
# SIGKILL: its guests are gone, and a kill is what a host crash does to it
# (init_host recovers at the next start; restart-compute.sh does the same).
SVCS="nova-compute-fake nova-compute nova-scheduler nova-conductor nova-api neutron-emptylists
 cinder-volume cinder-scheduler cinder-api barbican-api placement-api glance-api keystone"
for n in $SVCS; do pid=$(pid_of "$n") && alive "$pid" && kill -TERM "$pid" 2>/dev/null; done
for n in $SVCS; do
  t=30; [ "$n" = nova-compute ] && t=5
  stop_pid "$n" "$(pid_of "$n")" "$t"; rm -f "$R/$n.pid"
done
# Ceph after Cinder and the guests, its clients (bluestore keeps the data).
for n in ceph-mgr ceph-osd ceph-mon; do stop_pid "$n" "$(pid_of "$n")"; rm -f "$R/$n.pid"; done
stop_pid postgres "$(pid_of postgres)" 30 INT; rm -f "$R/postgres.pid"   # SIGINT: fast shutdown
stop_pid libvirtd "$(pid_of libvirtd)"; stop_pid virtlogd "$(pid_of virtlogd)"
rm -f "$R/libvirt-ns.pid" "$R/libvirtd.pid" "$R/virtlogd.pid"
beam=$(pid_of rabbitmq.beam); epmd=$(pid_of epmd)
stop_pid rabbitmq "$(pid_of rabbitmq)" 60; stop_pid rabbitmq-beam "$beam"; stop_pid epmd "$epmd"
rm -f "$R/rabbitmq.pid" "$R/rabbitmq.beam.pid" "$R/epmd.pid"

if [ "${1:-}" = "--wipe" ]; then
  rm -rf "$D" "$L" "$R" "$E" "$B/clouds.yaml"
  log "wiped $B"
fi
