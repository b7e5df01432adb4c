#!/bin/bash
# Restart the libvirt nova-compute of the devcloud, optionally the way a host
# reboot would, to watch what happens to vTPM guests.
#   --host-reboot                   destroy the running guests first (a host reboot does)
#   --resume-guests-on-boot         set [DEFAULT] resume_guests_state_on_host_boot = True
#   --no-resume-guests-on-boot      set it back to False (the default)
#   --config-only                   write nova-cpu.conf with these settings, do not restart
#   --secret-security MODES         Nova 2026.1+: [libvirt] supported_tpm_secret_security
#                                   (comma-separated; "default" = user,host,deployment)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEVCLOUD_FUNCTIONS_ONLY=1 . "$HERE/up.sh"
reboot=0 configonly=0
while [ $# -gt 0 ]; do
  a=$1; shift
  case $a in
    --secret-security) m=${1:?--secret-security needs MODES}; shift
      if [ "$m" = default ]; then rm -f "$D/nova/secret-security"; else echo "$m" > "$D/nova/secret-security"; fi ;;
    --host-reboot) reboot=1 ;;
    --config-only) configonly=1 ;;
    --resume-guests-on-boot) mkdir -p "$D/nova"; touch "$D/nova/resume-on-boot" ;;
    --no-resume-guests-on-boot) rm -f "$D/nova/resume-on-boot" ;;
    *) echo "restart-compute.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
if [ $configonly = 1 ]; then write_nova_conf; log "nova-cpu.conf rewritten (nova-compute not restarted)"; exit 0; fi
pid=$(pid_of nova-compute || true)
if alive "$pid"; then
  # SIGTERM, then SIGKILL after 2 s: 2026.x's nova-compute sits on SIGTERM
  # for 30-40 s. A kill is what a host crash does to nova-compute, and
  # init_host is Nova's own recovery from it (an instance left in BUILDING
  # goes to ERROR); callers restart only once their own operations are over,
  # so nothing in flight is lost. Zed needs 2-4 s to exit on SIGTERM.
  log "stopping nova-compute $pid"
  kill -TERM "$pid"
  for _ in $(seq 1 8); do alive "$pid" || break; sleep 0.25; done
  alive "$pid" && { kill -KILL "$pid"; log "nova-compute $pid killed after 2 s of SIGTERM"; }
  for _ in $(seq 1 40); do alive "$pid" || break; sleep 0.25; done
  log "nova-compute $pid stopped"
fi
if [ $reboot = 1 ]; then
  for d in $(virsh -c "$LIBVIRT_URI" list --name); do
    virsh -c "$LIBVIRT_URI" destroy "$d" > /dev/null && log "host reboot: destroyed $d"
  done
fi
write_nova_conf
t0=$(date -u '+%Y-%m-%d %H:%M:%S')
start_bg nova-compute nova-compute --config-file "$E/nova/nova-cpu.conf" --log-file "$L/nova-compute.log"
# Ready means two periodic service reports after the start (report_state
# runs only once init_host is over and the RPC server listens): an action
# sent earlier meets init_host's own recovery, which has no user token
# (on 2026.1 a failed vTPM hard reboot there even stops nova-compute).
# The first comes 5 s after init_host, the second report_interval later
# (2 s in the devcloud, conf/nova-common.conf.in).
seen="" ready=0
for _ in $(seq 1 300); do
  u=$(psql -h "$PG_SOCK" -U nova -d nova_cell1 -Atc "select updated_at from services where host = 'devcloud' and \"binary\" = 'nova-compute' and deleted = 0 and updated_at > '$t0'" 2> /dev/null)
  if [ -n "$u" ] && [ -n "$seen" ] && [ "$u" != "$seen" ]; then ready=1; break; fi
  [ -n "$u" ] && [ -z "$seen" ] && log "first service report"
  [ -n "$u" ] && seen=$u
  alive "$(pid_of nova-compute)" || { log "nova-compute died; see $L/nova-compute.log"; exit 1; }
  sleep 0.5
done
[ $ready = 1 ] || { log "nova-compute did not report twice within 150 s; see $L/nova-compute.log"; exit 1; }
resume=False
[ -f "$D/nova/resume-on-boot" ] && resume=True
log "nova-compute restarted (resume_guests_state_on_host_boot=$resume)"
