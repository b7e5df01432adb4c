# Shared by devcloud/up.sh, down.sh and status.sh (sourced, not run).
# Everything the local cloud writes lives under $DEVCLOUD_DIR.
DEVCLOUD_DIR=${DEVCLOUD_DIR:-/var/tmp/vtpmctl-devcloud}
B=$DEVCLOUD_DIR
E=$B/etc; D=$B/data; L=$B/logs; R=$B/run
# Debian's python3 and OpenStack tools, never a pyenv/go shim first on PATH.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# Passwords no output contains as a word: vtpmctl scrubs every password it
# holds from everything it prints, so a password "admin" would print
# "the <redacted> role" where a test asserts "the admin role".
ADMIN_PASS=${ADMIN_PASS:-vtpmctl-dc-admin-pw}
SVC_PASS=${SVC_PASS:-devcloud-svc}
REGION=RegionOne
KS=http://127.0.0.1:5000
RABBIT_URL="rabbit://guest:guest@127.0.0.1:5672/"
LIBVIRT_SOCK=$R/libvirt/libvirt-sock
LIBVIRT_URI="qemu+unix:///system?socket=$LIBVIRT_SOCK"
# PostgreSQL 15 on bookworm, 17 on trixie and later (devcloud/release.sh).
pg_bin() { local b; b=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true); echo "${b:-/usr/lib/postgresql/15/bin}"; }
PG_BIN=$(pg_bin)
PG_SOCK=$R/pg
T0=${T0:-$(date +%s.%N)}

log() { printf "[devcloud %6.1fs] %s\n" "$(awk -v a="$(date +%s.%N)" -v b="$T0" 'BEGIN{print a-b}')" "$*"; }

# put_file DEST CMD…: CMD's output becomes DEST, whole. Nothing is written
# when DEST already holds it or when CMD fails (DEST is left as it was), and
# a change lands as a new file renamed over DEST: a service starting beside
# the stage that writes it (nova-api beside the compute stages, which write
# Nova's files again) reads the old file or the new one, never one truncated
# half-way (CI once saw nova-api die on an api-paste.ini without its
# sections). DEST must be a regular file or absent. CMD runs as an if's
# condition, where set -e does not hold: a function given as CMD returns
# its first failure itself.
put_file() {
  local dest=$1 tmp; shift
  if [ -L "$dest" ] || { [ -e "$dest" ] && [ ! -f "$dest" ]; }; then
    log "$dest is not a regular file: not replaced"; return 1
  fi
  tmp=$(mktemp "$dest.XXXXXX")
  if ! "$@" > "$tmp"; then rm -f "$tmp"; log "$dest not written: $1 failed"; return 1; fi
  if cmp -s "$tmp" "$dest"; then rm -f "$tmp"; return 0; fi
  chmod 0644 "$tmp" && mv -f "$tmp" "$dest" || { rm -f "$tmp"; log "$dest not replaced"; return 1; }
}

# A PID is alive when it exists and is not a zombie: our daemons are
# re-parented to PID 1, which may reap them late.
alive() { [ -n "${1:-}" ] && [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

pid_of() { [ -f "$R/$1.pid" ] && tr -d '\n ' < "$R/$1.pid"; }

# start_bg NAME CMD… : start detached, output to $L/NAME.out, pid to $R/NAME.pid
start_bg() {
  local name=$1; shift
  if alive "$(pid_of "$name")"; then return 0; fi
  setsid "$@" >>"$L/$name.out" 2>&1 < /dev/null 9>&- &   # fd 9 is the devcloud lock
  echo $! > "$R/$name.pid"
  log "started $name (pid $!)"
}

wait_http() {
  local url=$1 t=${2:-120} i=0
  until curl -s -o /dev/null -m 5 "$url"; do
    i=$((i+1)); [ $i -ge $((t*2)) ] && { log "TIMEOUT waiting for $url (logs: $L)"; return 1; }
    sleep 0.5
  done
}

wait_tcp() {
  local port=$1 t=${2:-120} i=0
  until (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; do
    i=$((i+1)); [ $i -ge $((t*2)) ] && { log "TIMEOUT waiting for 127.0.0.1:$port (logs: $L)"; return 1; }
    sleep 0.5
  done
}

admin_env() {
  export OS_CLIENT_CONFIG_FILE=$B/clouds.yaml OS_CLOUD=devcloud-admin
  unset OS_AUTH_URL OS_USERNAME OS_PASSWORD OS_PROJECT_NAME
}

# The services, in start order; down.sh stops them in reverse.
SERVICES="keystone glance-api placement-api barbican-api rabbitmq postgres nova-api nova-conductor
 nova-scheduler neutron-emptylists libvirtd nova-compute nova-compute-fake"

# Cinder on a single-node Ceph (devcloud/cinder.sh). Part of the devcloud
# once set up ($D/cinder/.enabled), or on the first up.sh when
# DEVCLOUD_CINDER=1 asks for it. CEPH_MGR=1 adds a ceph-mgr (Python modules
# off, ~100 MiB): it only feeds "ceph df", so Cinder reports real capacities
# instead of "unknown"; volumes, attachments and boots work without it.
CINDER_PORT=8776
CEPH_MGR=${CEPH_MGR:-0}
CEPH_CONF=$E/ceph/ceph.conf
CINDER_PKGS="ceph-mon ceph-osd ceph-common python3-rbd python3-rados qemu-block-extra
 cinder-api cinder-scheduler cinder-volume"
[ "$CEPH_MGR" = 1 ] && CINDER_PKGS="$CINDER_PKGS ceph-mgr"
CINDER_SERVICES="ceph-mon ceph-osd ceph-mgr cinder-api cinder-scheduler cinder-volume"
cinder_wanted() { [ "${DEVCLOUD_CINDER:-}" = 1 ] || [ -f "$D/cinder/.enabled" ]; }
