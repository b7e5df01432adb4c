#!/bin/bash
# Bring up a real OpenStack Zed (Debian 12 packages) on 127.0.0.1, for
# vtpmctl's tests and demo. Installs packages as root on first run.
#
#   keystone :5000  glance :9292  placement :8778  barbican :9311  nova-api :8774
#   rabbitmq :5672  neutron stand-in :9696 (empty lists only; see neutron_emptylists.py)
#   postgresql for Nova's databases (unix socket only), sqlite (WAL) for the rest
#   nova-conductor, nova-scheduler, nova-compute (libvirt, qemu/TCG, swtpm; host devcloud)
#   nova-compute (fake driver, host devcloud-fake, availability zone "fake")
#   a private libvirtd + virtlogd in their own mount namespace
#
# Usage: devcloud/up.sh [stage …]   (stages: install keystone glance placement
#   barbican rabbit pg cinder nova libvirt compute fake; default all, cinder only
#   with DEVCLOUD_CINDER=1 or once devcloud/cinder.sh has set it up). Idempotent:
#   what runs is left alone, databases and keys are kept. devcloud/down.sh [--wipe].
set -euo pipefail
T0=$(date +%s.%N); export T0
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
mkdir -p "$E" "$D" "$L" "$R"
# One devcloud operation at a time (a CI teardown and a developer's up
# must not interleave); the lock lives outside $DEVCLOUD_DIR, which a wipe removes.
exec 9> "${DEVCLOUD_DIR}.lock"
flock 9

# devcloud/release.sh sets PG_PKG=postgresql inside a newer release's chroot.
PKGS="keystone glance-api placement-api barbican-api nova-api nova-conductor nova-scheduler
 nova-compute nova-compute-kvm python3-openstackclient python3-barbicanclient python3-osc-placement
 python3-novaclient python3-glanceclient rabbitmq-server libvirt-daemon-system libvirt-clients
 qemu-system-x86 qemu-utils swtpm swtpm-tools ovmf uwsgi-core uwsgi-plugin-python3 sqlite3 curl jq
 ${PG_PKG:-postgresql-15} python3-psycopg2"
ALL_STAGES="install keystone glance placement barbican rabbit pg nova libvirt compute fake"
# Ceph + Cinder (devcloud/cinder.sh) start before Nova, so its services' first
# start already has their settings: no second restart.
if cinder_wanted; then
  PKGS="$PKGS $CINDER_PKGS"
  ALL_STAGES="install keystone glance placement barbican rabbit pg cinder nova libvirt compute fake"
fi
STAGES="${*:-$ALL_STAGES}"

# render TEMPLATE [VAR=VALUE…]: substitute @NAME@ from the environment and args
render() {
  local tpl=$HERE/conf/$1; shift
  local -a sedargs=()
  local kv
  for kv in B="$B" D="$D" E="$E" L="$L" KS="$KS" REGION="$REGION" SVC_PASS="$SVC_PASS" \
            ADMIN_PASS="$ADMIN_PASS" RABBIT_URL="$RABBIT_URL" LIBVIRT_URI="$LIBVIRT_URI" PG_SOCK="$PG_SOCK" "$@"; do
    sedargs+=(-e "s|@${kv%%=*}@|${kv#*=}|g")
  done
  sed "${sedargs[@]}" "$tpl"
}

stage_install() {
  local missing
  missing=$(dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>&1 | grep -v 'install ok installed' || true)
  if [ -z "$missing" ]; then log "packages already installed"; return; fi
  [ "$(id -u)" = 0 ] || { echo "devcloud: installing packages needs root (apt-get)"; exit 2; }
  # No maintainer script may start a system service; our own copies run below.
  local made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; made_policy=1
  fi
  log "apt-get update + install (the whole cloud: about 4 min on 2 cores)"
  local t=$(date +%s)
  apt-get -o DPkg::Lock::Timeout=900 update -qq > "$L/apt-update.log" 2>&1
  # ceph-osd's sysctl file (pid_max, aio-max-nr) would retune the host's
  # kernel at its next boot; our one small OSD needs neither.
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y \
    -o DPkg::Options::=--path-exclude=/etc/sysctl.d/30-ceph-osd.conf \
    --no-install-recommends $PKGS > "$L/apt-install.log" 2>&1 \
    || { [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d; log "apt-get failed; see $L/apt-install.log"; exit 1; }
  [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
  log "apt-get done in $(( $(date +%s) - t ))s"
}

uwsgi_app() {  # NAME PORT WSGI-SCRIPT|MODULE:APP [extra uwsgi args…]  -> array UWSGI
  local name=$1 port=$2 script=$3; shift 3
  # Newer releases ship no /usr/bin/*-wsgi scripts, only the module.
  local app=(--wsgi-file "$script")
  case $script in /*) [ -e "$script" ] || app=(--module "$(wsgi_module "$script")") ;; *) app=(--module "$script") ;; esac
  # --add-header Connection: close: keystoneauth reuses keep-alive
  # connections, which uwsgi's http-socket drops (ConnectionResetError).
  UWSGI=(uwsgi --plugin python3 --http-socket "127.0.0.1:$port" "${app[@]}"
    --master --processes 1 --threads 1 --enable-threads --lazy-apps --die-on-term
    --buffer-size 65535 --add-header 'Connection: close' --need-app
    --procname-prefix-spaced "devcloud-$name" "$@")
}

# wsgi_module maps a WSGI script of the older packages to the module that
# replaced it.
wsgi_module() {
  case ${1##*/} in
    keystone-wsgi-public) echo keystone.wsgi.api:application ;;
    placement-api) echo placement.wsgi.api:application ;;
    barbican-wsgi-api) echo barbican.wsgi.api:application ;;
    nova-api-wsgi) echo nova.wsgi.osapi_compute:application ;;
    glance-wsgi-api) echo glance.wsgi.api:application ;;
    cinder-wsgi) echo cinder.wsgi.api:application ;;
  esac
}

stage_keystone() {
  mkdir -p "$E/keystone" "$D/keystone"
  render keystone.conf.in > "$E/keystone/keystone.conf"
  local km="keystone-manage --config-file $E/keystone/keystone.conf"
  if [ ! -f "$D/keystone/.bootstrapped" ]; then
    log "keystone db_sync"
    $km db_sync >> "$L/keystone-manage.log" 2>&1
    $km fernet_setup --keystone-user root --keystone-group root >> "$L/keystone-manage.log" 2>&1
    $km credential_setup --keystone-user root --keystone-group root >> "$L/keystone-manage.log" 2>&1
    sqlite3 "$D/keystone/keystone.sqlite" 'PRAGMA journal_mode=WAL;' > /dev/null  # readers never block writers
    touch "$D/keystone/.bootstrapped"
  fi
  # bootstrap again when the admin password changed (a kept cloud's
  # keystone-manage bootstrap resets it); the marker holds its hash only
  local pw; pw=$(printf '%s' "$ADMIN_PASS" | sha256sum | cut -c1-16)
  if [ "$(cat "$D/keystone/.admin-pass" 2>/dev/null)" != "$pw" ]; then
    log "keystone bootstrap"
    $km bootstrap --bootstrap-password "$ADMIN_PASS" --bootstrap-admin-url "$KS/v3/" \
      --bootstrap-internal-url "$KS/v3/" --bootstrap-public-url "$KS/v3/" \
      --bootstrap-region-id "$REGION" >> "$L/keystone-manage.log" 2>&1
    echo "$pw" > "$D/keystone/.admin-pass"
  fi
  uwsgi_app keystone 5000 /usr/bin/keystone-wsgi-public
  start_bg keystone env OS_KEYSTONE_CONFIG_DIR="$E/keystone" "${UWSGI[@]}"
  wait_http "$KS/v3"
  # .catalog-v4: v3 clouds had the users' names as their passwords
  if [ ! -f "$D/keystone/.catalog-v4" ]; then
    log "keystone catalog, projects and users"
    KS=$KS REGION=$REGION ADMIN_PASS=$ADMIN_PASS SVC_PASS=$SVC_PASS /usr/bin/python3 "$HERE/keystone_setup.py" >> "$L/keystone-setup.log" 2>&1
    touch "$D/keystone/.catalog-v4"
  fi
  render clouds.yaml.in > "$B/clouds.yaml"
}

stage_glance() {
  mkdir -p "$E/glance" "$D/glance/images" "$D/glance/staging"
  { render glance-api.conf.in; render authtoken.conf.in SVC_USER=glance; } > "$E/glance/glance-api.conf"
  if [ ! -f "$D/glance/.synced" ]; then
    glance-manage --config-file "$E/glance/glance-api.conf" db_sync >> "$L/glance-manage.log" 2>&1
    sqlite3 "$D/glance/glance.sqlite" 'PRAGMA journal_mode=WAL;' > /dev/null
    touch "$D/glance/.synced"
  fi
  if python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("glance.wsgi.api") is None)' 2> /dev/null; then
    # Glance 31+ runs only under a WSGI server (an upload of a known size
    # is not chunked: plain --http-socket serves it).
    uwsgi_app glance 9292 glance.wsgi.api:application --chunked-input-limit 1073741824
    start_bg glance-api env OS_GLANCE_CONFIG_DIR="$E/glance" "${UWSGI[@]}"
  else
    start_bg glance-api glance-api --config-file "$E/glance/glance-api.conf"
  fi
}

stage_placement() {
  mkdir -p "$E/placement" "$D/placement"
  { render placement.conf.in; render authtoken.conf.in SVC_USER=placement; } > "$E/placement/placement.conf"
  if [ ! -f "$D/placement/.synced" ]; then
    placement-manage --config-file "$E/placement/placement.conf" db sync >> "$L/placement-manage.log" 2>&1
    sqlite3 "$D/placement/placement.sqlite" 'PRAGMA journal_mode=WAL;' > /dev/null
    touch "$D/placement/.synced"
  fi
  uwsgi_app placement 8778 /usr/bin/placement-api
  start_bg placement-api env OS_PLACEMENT_CONFIG_DIR="$E/placement" "${UWSGI[@]}"
}

stage_barbican() {
  # barbican-wsgi-api finds its config only on oslo's search path, so it
  # gets a HOME of its own with ~/.barbican/barbican.conf.
  mkdir -p "$D/barbican/home/.barbican"
  [ -f "$D/barbican/kek" ] || /usr/bin/python3 -c 'import base64,os;print(base64.b64encode(os.urandom(32)).decode())' > "$D/barbican/kek"
  { render barbican.conf.in KEK="$(cat "$D/barbican/kek")"; render authtoken.conf.in SVC_USER=barbican; } \
    > "$D/barbican/home/.barbican/barbican.conf"
  ln -sfn "$D/barbican/home/.barbican" "$E/barbican"
  if [ ! -f "$D/barbican/.synced" ]; then
    HOME=$D/barbican/home barbican-manage db upgrade >> "$L/barbican-manage.log" 2>&1
    sqlite3 "$D/barbican/barbican.sqlite" 'PRAGMA journal_mode=WAL;' > /dev/null
    touch "$D/barbican/.synced"
  fi
  uwsgi_app barbican 9311 /usr/bin/barbican-wsgi-api
  start_bg barbican-api env HOME="$D/barbican/home" "${UWSGI[@]}"
}

stage_rabbit() {
  mkdir -p "$E/rabbitmq" "$D/rabbitmq/home" "$L/rabbitmq"
  render rabbitmq.conf.in > "$E/rabbitmq/rabbitmq.conf"
  echo '[].' > "$E/rabbitmq/enabled_plugins"
  start_bg rabbitmq env HOME="$D/rabbitmq/home" \
    RABBITMQ_NODENAME=devcloud@localhost RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT=5672 \
    RABBITMQ_DIST_PORT=25672 ERL_DIST_PORT=25672 ERL_EPMD_ADDRESS=127.0.0.1 \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-start_epmd false -kernel inet_dist_use_interface {127,0,0,1}" \
    RABBITMQ_CONFIG_FILE="$E/rabbitmq/rabbitmq.conf" RABBITMQ_ENABLED_PLUGINS_FILE="$E/rabbitmq/enabled_plugins" \
    RABBITMQ_MNESIA_BASE="$D/rabbitmq/mnesia" RABBITMQ_LOG_BASE="$L/rabbitmq" \
    RABBITMQ_PID_FILE="$R/rabbitmq.beam.pid" RABBITMQ_CONF_ENV_FILE=/dev/null \
    /usr/lib/rabbitmq/bin/rabbitmq-server
}

# Nova on sqlite loses boots under concurrency ("database is locked"), so its
# databases get a private PostgreSQL with no TCP port at all.
stage_pg() {
  PG_BIN=$(pg_bin)   # known once the packages are in
  mkdir -p "$D/pg" "$PG_SOCK"; chown postgres:postgres "$D/pg" "$PG_SOCK"; chmod 700 "$D/pg"
  if [ ! -f "$D/pg/PG_VERSION" ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups "$PG_BIN/initdb" -D "$D/pg" -A trust -U postgres \
      -E UTF8 --locale=C.UTF-8 > "$L/pg-initdb.log" 2>&1
  fi
  start_bg postgres setpriv --reuid=postgres --regid=postgres --init-groups "$PG_BIN/postgres" -D "$D/pg" \
    -c listen_addresses= -c unix_socket_directories="$PG_SOCK" -c max_connections=300 \
    -c shared_buffers=64MB -c fsync=off -c synchronous_commit=off -c full_page_writes=off
  local i=0
  until "$PG_BIN/pg_isready" -q -h "$PG_SOCK"; do i=$((i+1)); [ $i -gt 120 ] && { log "postgres timeout"; return 1; }; sleep 0.5; done
  if ! psql -h "$PG_SOCK" -U postgres -Atc "select 1 from pg_roles where rolname='nova'" | grep -q 1; then
    psql -q -h "$PG_SOCK" -U postgres -c "CREATE ROLE nova LOGIN PASSWORD 'nova'"
    for db in nova_api nova_cell0 nova_cell1; do createdb -h "$PG_SOCK" -U postgres -O nova $db; done
  fi
}

# nova_cpu_conf RESUME: nova-compute's settings (put_file's CMD: each
# failure returns, as set -e does not hold there).
nova_cpu_conf() {
  render nova-common.conf.in RESUME_ON_BOOT="$1" || return
  if grep -qs supported_tpm_secret_security /usr/lib/python3/dist-packages/nova/conf/libvirt.py; then
    local modes=user,host,deployment
    if [ -f "$D/nova/secret-security" ]; then modes=$(cat "$D/nova/secret-security") || return; fi
    render nova-secret-security.conf.in MODES="$modes" || return
  fi
  if [ -f "$D/cinder/.enabled" ]; then render nova-cinder.conf.in || return; fi
}
# nova_conf RESUME: the other services' settings, nova-compute's and more.
nova_conf() { nova_cpu_conf "$1" && render nova-db.conf.in && render authtoken.conf.in SVC_USER=nova; }

write_nova_conf() {
  mkdir -p "$E/nova" "$D/nova/instances" "$D/nova/lock"
  local resume=False
  [ -f "$D/nova/resume-on-boot" ] && resume=True
  put_file "$E/nova/api-paste.ini" cat /etc/nova/api-paste.ini
  put_file "$E/nova/nova-cpu.conf" nova_cpu_conf $resume
  put_file "$E/nova/nova.conf" nova_conf $resume
  put_file "$E/nova/nova-api.conf" printf '[DEFAULT]\nlog_file = %s\n' "$L/nova-api.log"
  put_file "$E/nova/nova-fake.conf" render nova-fake.conf.in
}

stage_nova() {
  write_nova_conf
  wait_tcp 5672 90
  local nm="nova-manage --config-file $E/nova/nova.conf"
  if [ ! -f "$D/nova/.synced" ]; then
    log "nova api_db sync, cells, db sync"
    {
      $nm api_db sync
      $nm cell_v2 map_cell0 --database_connection "postgresql+psycopg2://nova:nova@/nova_cell0?host=$PG_SOCK"
      $nm cell_v2 list_cells | grep -q ' cell1 ' || $nm cell_v2 create_cell --name cell1
      $nm db sync
    } >> "$L/nova-manage.log" 2>&1
    touch "$D/nova/.synced"
  fi
  # The first file of OS_NOVA_CONFIG_FILES must be api-paste.ini.
  uwsgi_app nova-api 8774 /usr/bin/nova-api-wsgi --reload-on-rss 400
  start_bg nova-api env OS_NOVA_CONFIG_DIR="$E/nova" OS_NOVA_CONFIG_FILES='api-paste.ini;nova.conf;nova-api.conf' "${UWSGI[@]}"
  start_bg nova-conductor nova-conductor --config-file "$E/nova/nova.conf" --log-file "$L/nova-conductor.log"
  start_bg nova-scheduler nova-scheduler --config-file "$E/nova/nova.conf" --log-file "$L/nova-scheduler.log"
  start_bg neutron-emptylists /usr/bin/python3 "$HERE/neutron_emptylists.py" 9696
}

# libvirtd and virtlogd run in their own mount namespace with /etc/libvirt,
# /run/libvirt, /var/lib/libvirt, … bound from $DEVCLOUD_DIR, so a system
# libvirtd (or another user's) is never touched.
stage_libvirt() {
  mkdir -p "$R/libvirt" "$D/libvirt/lib" "$D/libvirt/cache" "$L/libvirt" "$L/swtpm"
  if [ -n "${DEVCLOUD_CHROOT:-}" ]; then libvirt_in_chroot; return; fi
  if [ ! -d "$E/libvirt" ]; then
    cp -a /etc/libvirt "$E/libvirt"
    rm -f "$E"/libvirt/qemu/networks/autostart/*.xml   # no virbr0, no dnsmasq
    cat "$HERE/conf/libvirtd.conf.append" >> "$E/libvirt/libvirtd.conf"
    cat "$HERE/conf/qemu.conf.append" >> "$E/libvirt/qemu.conf"
    cp -a /var/lib/libvirt/. "$D/libvirt/lib/" 2>/dev/null || true
  fi
  if alive "$(pid_of libvirtd)"; then return 0; fi
  cat > "$R/libvirt-ns.sh" <<EOF
#!/bin/bash
set -e
mount --make-rprivate /
mount --bind $E/libvirt /etc/libvirt
mkdir -p /run/libvirt; mount --bind $R/libvirt /run/libvirt
mount --bind $D/libvirt/lib /var/lib/libvirt
mount --bind $D/libvirt/cache /var/cache/libvirt
mount --bind $L/libvirt /var/log/libvirt
mkdir -p /var/log/swtpm; mount --bind $L/swtpm /var/log/swtpm
/usr/sbin/virtlogd --pid-file $R/virtlogd.pid &
exec /usr/sbin/libvirtd --pid-file $R/libvirtd.pid
EOF
  chmod +x "$R/libvirt-ns.sh"
  start_bg libvirt-ns unshare --mount --propagation private "$R/libvirt-ns.sh"
  local i=0
  until [ -S "$LIBVIRT_SOCK" ] && virsh -c "$LIBVIRT_URI" version > /dev/null 2>&1; do
    i=$((i+1)); [ $i -gt 120 ] && { log "libvirtd did not start; see $L/libvirt-ns.out"; return 1; }; sleep 0.5
  done
}

# In devcloud/release.sh's chroot the chroot already keeps libvirt apart
# (and "/" there is no mount point, so unshare cannot make it private):
# libvirtd uses the chroot's own /etc/libvirt with its socket at the same
# place as on the host, and QEMU gets no mount namespace of its own.
libvirt_in_chroot() {
  if [ ! -f /etc/libvirt/.devcloud ]; then
    rm -f /etc/libvirt/qemu/networks/autostart/*.xml
    { cat "$HERE/conf/libvirtd.conf.append"; echo "unix_sock_dir = \"$R/libvirt\""; } >> /etc/libvirt/libvirtd.conf
    { cat "$HERE/conf/qemu.conf.append"; echo 'namespaces = [ ]'; } >> /etc/libvirt/qemu.conf
    touch /etc/libvirt/.devcloud
  fi
  rm -rf "$E/libvirt"; cp -a /etc/libvirt "$E/libvirt"   # where the host-side tests read qemu.conf
  if alive "$(pid_of libvirtd)"; then return 0; fi
  start_bg virtlogd /usr/sbin/virtlogd --pid-file "$R/virtlogd.pid"
  start_bg libvirtd /usr/sbin/libvirtd --pid-file "$R/libvirtd.pid"
  local i=0
  until [ -S "$LIBVIRT_SOCK" ] && virsh -c "$LIBVIRT_URI" version > /dev/null 2>&1; do
    i=$((i+1)); [ $i -gt 120 ] && { log "libvirtd did not start; see $L/libvirtd.out"; return 1; }; sleep 0.5
  done
}

# Ceph and Cinder start here; their readiness is awaited with the other
# services' at the end, so Nova starts meanwhile.
stage_cinder() {
  . "$HERE/cinder.sh"   # its functions
  local t=$(date +%s.%N)
  ceph_start
  log "ceph up in $(since "$t") s"
  cinder_start
  CINDER_SPENT=$(since "$t")
}
since() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN{printf "%.1f", a-b}'; }

stage_compute() {
  write_nova_conf
  start_bg nova-compute nova-compute --config-file "$E/nova/nova-cpu.conf" --log-file "$L/nova-compute.log"
}

stage_fake() {
  write_nova_conf
  start_bg nova-compute-fake python3 "$HERE/nova_compute_fake.py" --config-file "$E/nova/nova-cpu.conf" \
    --config-file "$E/nova/nova-fake.conf" --log-file "$L/nova-compute-fake.log"
}

[ -n "${DEVCLOUD_FUNCTIONS_ONLY:-}" ] && return 0   # sourced by restart-compute.sh
COMPUTES_T0=$(date -u '+%Y-%m-%d %H:%M:%S')   # Nova's updated_at is UTC (T0 is the log's clock)
for s in $STAGES; do stage_"$s"; done

for s in $STAGES; do
  case $s in
    glance) wait_http http://127.0.0.1:9292/ ;;
    placement) wait_http http://127.0.0.1:8778/ ;;
    barbican) wait_http http://127.0.0.1:9311/ ;;
    rabbit) wait_tcp 5672
      # remember the epmd our broker spawned (found by its environment) for down.sh
      for p in $(pgrep -x epmd || true); do
        grep -qz "^RABBITMQ_MNESIA_BASE=$D/rabbitmq/mnesia" "/proc/$p/environ" 2>/dev/null && echo "$p" > "$R/epmd.pid"
      done ;;
    cinder) t=$(date +%s.%N); cinder_wait
      log "ceph + cinder up: they added $(awk -v a="$CINDER_SPENT" -v b="$(since "$t")" 'BEGIN{printf "%.1f", a+b}') s to this run" ;;
    nova) wait_http http://127.0.0.1:8774/; wait_http http://127.0.0.1:9696/
      if [ ! -f "$D/nova/.quota" ]; then  # the default quota is 10 instances
        ( admin_env; for p in admin demo other; do openstack quota set --instances -1 --cores -1 --ram -1 $p; done ) \
          >> "$L/devcloud-setup.log" 2>&1 && touch "$D/nova/.quota"
      fi ;;
  esac
done

want=0
case " $STAGES " in *" compute "*) want=$((want+1));; esac
case " $STAGES " in *" fake "*) want=$((want+1));; esac
if [ $want -gt 0 ] && [ ! -f "$D/nova/.hosts-$want" ]; then
  log "waiting for $want compute service(s) to register"
  for _ in $(seq 1 720); do   # polled 4 times a second, up to 3 minutes
    n=$(psql -h "$PG_SOCK" -U nova -d nova_cell1 -Atc "select count(*) from compute_nodes where deleted=0" 2>/dev/null || echo 0)
    [ "$n" -ge $want ] && break; sleep 0.25
  done
  nova-manage --config-file "$E/nova/nova.conf" cell_v2 discover_hosts >> "$L/nova-manage.log" 2>&1
  # Non-admins may pick an AZ but not force a host, so each compute gets an
  # AZ of its own: "libvirt" (real guests, vTPM) and "fake" (scale tests).
  ( admin_env
    for pair in libvirt:devcloud fake:devcloud-fake; do
      az=${pair%%:*} host=${pair#*:}
      case " $STAGES " in *" compute "*) ;; *) [ "$az" = libvirt ] && continue;; esac
      case " $STAGES " in *" fake "*) ;; *) [ "$az" = fake ] && continue;; esac
      # Create and add without a "show" first: each openstack CLI start
      # costs 2.5-3 s (4 calls per zone become 2). Again, they answer 409
      # (exists, already has host) and change nothing.
      openstack aggregate create --zone "$az" "$az" > /dev/null || true
      openstack aggregate add host "$az" "$host" > /dev/null || true
    done
  ) >> "$L/devcloud-setup.log" 2>&1
  touch "$D/nova/.hosts-$want"
fi
# Every compute has reported since this start: with a kept database the
# records above are from the last run, and the scheduler's ComputeFilter
# takes a compute whose last report is older than service_down_time for
# down ("No valid host" for the first tests after an up).
if [ $want -gt 0 ]; then
  for _ in $(seq 1 720); do   # polled 4 times a second, up to 3 minutes
    n=$(psql -h "$PG_SOCK" -U nova -d nova_cell1 -Atc "select count(distinct host) from services where \"binary\" = 'nova-compute'
      and deleted = 0 and host in ('devcloud', 'devcloud-fake') and updated_at >= '$COMPUTES_T0'" 2>/dev/null || echo 0)
    [ "${n:-0}" -ge $want ] && break; sleep 0.25
  done
  [ "${n:-0}" -ge $want ] || log "WARNING: only ${n:-0} of $want compute service(s) reported since the start; see $L/nova-compute*.log"
fi
log "devcloud up: export OS_CLIENT_CONFIG_FILE=$B/clouds.yaml (clouds devcloud-admin, -demo, -demo2, -other); logs in $L"
