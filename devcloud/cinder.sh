#!/bin/bash
# Cinder (RBD driver) on a single-node Ceph, part of the devcloud: volumes
# that QEMU opens in userspace (librbd, qemu-block-extra), so the host needs
# no kernel rbd, iSCSI, NFS or device-mapper, no loop device and no mount.
#
#   devcloud/cinder.sh up      add Ceph + Cinder to a running devcloud (installs
#                              the packages first, as root), then restart its
#                              nova-compute once with the settings Cinder needs
#   devcloud/cinder.sh status  what of Ceph and Cinder runs (exit 1 if any is down)
#   devcloud/cinder.sh down    take Cinder out again: stop it, drop its database,
#                              catalog entries and data; nova-compute back to plain
#   … [RELEASE]                the same in a newer release's cloud (devcloud/release.sh)
#
# From nothing, DEVCLOUD_CINDER=1 devcloud/up.sh does it all in one go (one
# apt-get, nova-compute started once, already configured). Once set up, Ceph
# and Cinder belong to the devcloud: up.sh starts them, down.sh stops them,
# down.sh --wipe deletes them with the rest.
#
# Ceph: mon.a on 127.0.0.1:3300 (msgr2) and :6789 (msgr1), osd.0 (bluestore,
# a sparse 10 GiB file) from :6800, pool "volumes", cephx off; CEPH_MGR=1
# adds a mgr (see lib.sh). Cinder: API :8776 (Keystone types volumev3 and
# block-storage), scheduler, volume with backend "ceph"; its database lives
# in the devcloud's PostgreSQL. Every file is under $DEVCLOUD_DIR (etc/ceph,
# etc/cinder, data/ceph, data/cinder, logs/ceph, run/ceph; PIDs in run/).

# ceph_start: mon, OSD (and mgr), pool "volumes"; ready when a RADOS write
# succeeds (PG stats come from the mgr, and a mon keeps an OSD that died
# unseen "up" for 15 minutes: only I/O proves it).
ceph_start() {
  # bounded: a mgr-only command (osd purge, df…) waits forever without a mgr
  local ceph="timeout 30 ceph -c $CEPH_CONF --connect-timeout 10" uuid
  mkdir -p "$E/ceph" "$D/ceph" "$L/ceph" "$R/ceph"
  [ -f "$E/ceph/fsid" ] || cat /proc/sys/kernel/random/uuid > "$E/ceph/fsid"
  render ceph.conf.in FSID="$(cat "$E/ceph/fsid")" R="$R" > "$CEPH_CONF"
  if [ ! -f "$D/ceph/mon.a/.made" ]; then
    rm -rf "$D/ceph/mon.a"; mkdir -p "$D/ceph/mon.a"
    [ -f "$E/ceph/keyring" ] || ceph-authtool --create-keyring "$E/ceph/keyring" --gen-key -n mon. --cap mon 'allow *' > /dev/null
    monmaptool --create --fsid "$(cat "$E/ceph/fsid")" --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' \
      "$E/ceph/monmap" --clobber > /dev/null
    ceph-mon -c "$CEPH_CONF" --mkfs -i a --monmap "$E/ceph/monmap" --keyring "$E/ceph/keyring" > "$L/ceph/mon-mkfs.log" 2>&1 ||
      { log "ceph-mon --mkfs failed; see $L/ceph/mon-mkfs.log"; return 1; }
    touch "$D/ceph/mon.a/.made"
  fi
  start_bg ceph-mon ceph-mon -c "$CEPH_CONF" -f -i a
  until_ok 60 "ceph mon answers" $ceph mon stat
  if [ ! -f "$D/ceph/osd.0/.made" ]; then
    rm -rf "$D/ceph/osd.0"; mkdir -p "$D/ceph/osd.0"
    uuid=$(cat /proc/sys/kernel/random/uuid)
    $ceph osd rm 0 > /dev/null 2>&1 || true   # left by a failed mkfs
    $ceph osd new "$uuid" 0 > /dev/null
    ceph-osd -c "$CEPH_CONF" -i 0 --mkfs --osd-uuid "$uuid" > "$L/ceph/osd-mkfs.log" 2>&1 ||
      { log "ceph-osd --mkfs failed; see $L/ceph/osd-mkfs.log"; return 1; }
    touch "$D/ceph/osd.0/.made"
  fi
  start_bg ceph-osd ceph-osd -c "$CEPH_CONF" -f -i 0
  if [ "$CEPH_MGR" = 1 ]; then
    mkdir -p "$D/ceph/mgr.x"
    start_bg ceph-mgr ceph-mgr -c "$CEPH_CONF" -f -i x
    # the always-on modules we keep from loading report "failed"
    $ceph health mute MGR_MODULE_ERROR --sticky > /dev/null 2>&1 || true
  fi
  if ! grep -qx volumes <<< "$($ceph osd pool ls 2> /dev/null)"; then
    $ceph osd pool create volumes 8 8 replicated --autoscale-mode=off > /dev/null 2>&1
    $ceph osd pool set volumes size 1 --yes-i-really-mean-it > /dev/null 2>&1
    timeout 60 rbd -c "$CEPH_CONF" pool init volumes
  fi
  echo probe > "$R/ceph/probe"
  until_ok 90 "a RADOS write to pool volumes" timeout 10 rados -c "$CEPH_CONF" -p volumes put devcloud-probe "$R/ceph/probe"
  rados -c "$CEPH_CONF" -p volumes rm devcloud-probe
}

# cinder_start: configuration, database, Keystone entries, the three
# services (cinder_wait waits for them, so up.sh starts nova-compute meanwhile).
cinder_start() {
  mkdir -p "$E/cinder" "$D/cinder/lock" "$D/cinder/conversion"
  cp -f /etc/cinder/api-paste.ini "$E/cinder/api-paste.ini"
  # nova-api calls Cinder with the user's token plus its own as
  # X-Service-Token, a token fetched at its start: before cinder_keystone
  # gave user nova role "service" it carries only "admin", and Cinder (with
  # service_token_roles_required) would answer 401, so nova-api says "Block
  # Device Mapping is Invalid: failed to get volume". Admins may force-detach anyway.
  local db="postgresql+psycopg2://cinder:cinder@/cinder?host=$PG_SOCK"
  { render cinder.conf.in CINDER_PORT="$CINDER_PORT" CINDER_DB="$db"; render authtoken.conf.in SVC_USER=cinder
    echo "service_token_roles = service,admin"; } > "$E/cinder/cinder.conf"
  local psql="psql -q -h $PG_SOCK -U postgres"
  if ! $psql -Atc "select 1 from pg_roles where rolname='cinder'" | grep -q 1; then
    $psql -c "CREATE ROLE cinder LOGIN PASSWORD 'cinder'"
    createdb -h "$PG_SOCK" -U postgres -O cinder cinder
  fi
  # .synced-pg: a Cinder set up on sqlite before (its .synced) gets its
  # schema in PostgreSQL too
  rm -f "$D/cinder/.synced" "$D"/cinder/cinder.sqlite*
  if [ ! -f "$D/cinder/.synced-pg" ]; then
    cinder_db_sync >> "$L/cinder-manage.log" 2>&1 ||
      { log "cinder db sync failed; see $L/cinder-manage.log"; return 1; }
    touch "$D/cinder/.synced-pg"
  fi
  if [ ! -f "$D/cinder/.keystone" ]; then
    cinder_keystone >> "$L/cinder-keystone.log" 2>&1 || { log "cinder's Keystone setup failed; see $L/cinder-keystone.log"; return 1; }
    touch "$D/cinder/.keystone"
  fi
  # From here on Nova's config carries [service_user] (write_nova_conf).
  touch "$D/cinder/.enabled"
  # cinder-wsgi reads its options from sys.argv, which uwsgi fills only
  # through --pyargv.
  uwsgi_app cinder-api "$CINDER_PORT" /usr/bin/cinder-wsgi \
    --pyargv "--config-file $E/cinder/cinder.conf --log-file $L/cinder-api.log"
  start_bg cinder-api "${UWSGI[@]}"
  start_bg cinder-scheduler cinder-scheduler --config-file "$E/cinder/cinder.conf" --log-file "$L/cinder-scheduler.log"
  start_bg cinder-volume cinder-volume --config-file "$E/cinder/cinder.conf" --log-file "$L/cinder-volume.log"
}

# cinder_wait: the API answers and cinder-volume devcloud@ceph has reported
# (a volume created before that fails with "No valid backend").
cinder_wait() {
  wait_http "http://127.0.0.1:$CINDER_PORT/" 120
  local since="now() at time zone 'utc' - interval '30 seconds'"
  until_ok 120 "cinder-volume devcloud@ceph reports" cinder_sql "select 1 from services
    where host = 'devcloud@ceph' and topic = 'cinder-volume' and not deleted and not disabled
    and updated_at > $since"
}

# cinder_db_sync: Cinder's schema in PostgreSQL. Cinder's migration
# 9ab1b092a404 (Cinder 26, 28 and 29: 2025.1, 2026.1, 2026.2) runs
# UPDATE volumes SET use_quota="1", MySQL's quoting, which PostgreSQL reads
# as a column and rejects. Where it is so, the schema goes up to the
# revision before it, that one step is done in PostgreSQL's words (on a new
# database the UPDATEs touch no row), alembic is told it ran, and the
# remaining migrations follow. (sqlite, used here before, answered
# concurrent writers "database is locked": a 500 from Cinder.)
cinder_db_sync() {
  local conf="$E/cinder/cinder.conf" step=9ab1b092a404
  if grep -qs 'use_quota="1"' /usr/lib/python3/dist-packages/cinder/db/migrations/versions/${step}_make_use_quota_non_nullable.py; then
    # cinder-manage db sync takes only sqlalchemy-migrate's integer versions.
    python3 -c 'import sys
from oslo_config import cfg
from cinder.common import config  # registers its CLI options before parsing
from cinder.db import migration
cfg.CONF(["--config-file", sys.argv[1]], project="cinder")
migration.db_sync("b8660621f1b9")' "$conf" || return 1
    psql -v ON_ERROR_STOP=1 -q -h "$PG_SOCK" -U postgres -d cinder <<SQL || return 1
BEGIN;
UPDATE volumes SET use_quota = true WHERE use_quota IS NULL;
ALTER TABLE volumes ALTER COLUMN use_quota SET NOT NULL, ALTER COLUMN use_quota SET DEFAULT true;
UPDATE snapshots SET use_quota = true WHERE use_quota IS NULL;
ALTER TABLE snapshots ALTER COLUMN use_quota SET NOT NULL, ALTER COLUMN use_quota SET DEFAULT true;
UPDATE alembic_version SET version_num = '$step' WHERE version_num = 'b8660621f1b9';
COMMIT;
SQL
  fi
  cinder-manage --config-file "$conf" db sync
}

cinder_sql() {  # QUERY: rows of Cinder's database (fails when there are none)
  local out
  out=$(psql -h "$PG_SOCK" -U postgres -d cinder -Atc "$1")
  [ -n "$out" ] && echo "$out"
}

# cinder_keystone: user cinder, role "service" for nova and cinder (the
# service token checks of Cinder and Glance want it), services volumev3
# (Nova's default catalog_info) and block-storage, with their endpoints.
cinder_keystone() {
  KS=$KS REGION=$REGION ADMIN_PASS=$ADMIN_PASS SVC_PASS=$SVC_PASS PORT=$CINDER_PORT /usr/bin/python3 - <<'EOF'
import os
from keystoneauth1 import session
from keystoneauth1.identity import v3
s = session.Session(auth=v3.Password(
    auth_url=os.environ['KS'] + '/v3', username='admin', password=os.environ['ADMIN_PASS'],
    project_name='admin', user_domain_id='default', project_domain_id='default'))
EP = {'service_type': 'identity', 'interface': 'public'}
get = lambda p, **q: s.get(p, endpoint_filter=EP, params=q).json()
post = lambda p, b: s.post(p, json=b, endpoint_filter=EP).json()
def one(coll, key, name, body):
    items = get('/' + coll, name=name)[coll]
    return (items[0] if items else post('/' + coll, {key: body})[key])['id']
service = get('/projects', name='service')['projects'][0]['id']
roles = {r: one('roles', 'role', r, {'name': r}) for r in ('admin', 'service')}
users = {'nova': get('/users', name='nova')['users'][0]['id'],
         'cinder': one('users', 'user', 'cinder', {'name': 'cinder', 'password': os.environ['SVC_PASS'], 'domain_id': 'default'})}
for u, rs in (('cinder', ('admin', 'service')), ('nova', ('service',))):
    for r in rs:
        s.put('/projects/%s/users/%s/roles/%s' % (service, users[u], roles[r]), endpoint_filter=EP)
url = 'http://127.0.0.1:%s/v3/%%(project_id)s' % os.environ['PORT']
for stype, name in (('volumev3', 'cinderv3'), ('block-storage', 'cinder')):
    svcs = get('/services', type=stype)['services']
    sid = svcs[0]['id'] if svcs else post('/services', {'service': {'name': name, 'type': stype, 'enabled': True}})['service']['id']
    have = {e['interface'] for e in get('/endpoints', service_id=sid)['endpoints']}
    for iface in {'public', 'internal', 'admin'} - have:
        post('/endpoints', {'endpoint': {'service_id': sid, 'interface': iface, 'url': url,
                                         'region_id': os.environ['REGION'], 'enabled': True}})
print('cinder keystone setup done')
EOF
}

until_ok() {  # SECONDS WHAT CMD… : retry CMD every 0.5 s
  local t=$1 what=$2 i=0; shift 2
  until "$@" > /dev/null 2>&1; do
    i=$((i+1)); [ $i -ge $((t*2)) ] && { log "TIMEOUT: $what (logs: $L)"; return 1; }
    sleep 0.5
  done
}

# pss_mib PID: proportional set size of the process and its children.
pss_mib() {
  local kb=0 p
  for p in $(tree_pids "$1"); do
    kb=$((kb + $(awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)))
  done
  echo $((kb / 1024))
}
tree_pids() { local c; echo "$1"; for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree_pids "$c"; done; }

cinder_status() {
  local n pid rc=0 total=0 m
  printf '%-20s %-8s %s\n' SERVICE STATE DETAIL
  for n in $CINDER_SERVICES; do
    pid=$(pid_of "$n" || true)
    if alive "$pid"; then
      m=$(pss_mib "$pid"); total=$((total + m))
      printf '%-20s %-8s pid %s, PSS %s MiB (with children)\n' "$n" up "$pid" "$m"
    elif [ "$n" != ceph-mgr ]; then
      printf '%-20s %-8s %s\n' "$n" DOWN "log: $L/$n.out"; rc=1
    fi
  done
  echo "PSS of Ceph + Cinder: $total MiB"
  if alive "$(pid_of ceph-mon || true)"; then
    echo "ceph health: $(timeout 15 ceph -c "$CEPH_CONF" --connect-timeout 10 health 2>&1)"
  fi
  return $rc
}

# cinder_down: Cinder out of the devcloud; the devcloud itself stays up.
cinder_down() {
  local psql="psql -q -h $PG_SOCK -U postgres" n busy
  busy=$(cinder_sql "select volume_id from volume_attachment where not deleted and attach_status = 'attached'" 2>/dev/null || true)
  [ -n "$busy" ] && log "WARNING: volumes still attached (their guests lose their disks): $(echo $busy)"
  rm -f "$D/cinder/.enabled"
  for n in cinder-volume cinder-scheduler cinder-api ceph-mgr ceph-osd ceph-mon; do stop_daemon "$n"; done
  if [ -S "$PG_SOCK/.s.PGSQL.5432" ]; then
    dropdb -h "$PG_SOCK" -U postgres --if-exists cinder && $psql -c "DROP ROLE IF EXISTS cinder"
  fi
  if curl -s -o /dev/null -m 5 "$KS/v3"; then
    ( admin_env
      for type in volumev3 block-storage; do
        for ep in $(openstack endpoint list --service "$type" -f value -c ID 2>/dev/null); do openstack endpoint delete "$ep"; done
        openstack service show "$type" > /dev/null 2>&1 && openstack service delete "$type"
      done
      openstack user show cinder > /dev/null 2>&1 && openstack user delete cinder
      true ) >> "$L/cinder-keystone.log" 2>&1
  fi
  rm -rf "$E/ceph" "$E/cinder" "$D/ceph" "$D/cinder" "$L/ceph" "$R/ceph"
  log "Cinder and Ceph removed (nova keeps role service; RabbitMQ keeps Cinder's idle queues)"
}

stop_daemon() {  # NAME: SIGTERM by its PID file, SIGKILL after 60 s
  local pid i
  pid=$(pid_of "$1" || true)
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 1 240); do alive "$pid" || break; sleep 0.25; done
    alive "$pid" && { kill -KILL "$pid" 2>/dev/null; log "killed $1 (pid $pid)"; }
  fi
  rm -f "$R/$1.pid"
}

# in_release REL CMD…: run cinder.sh CMD in a newer release's cloud (see
# release.sh): "install" in its chroot with the host's network (apt), the
# rest also inside its network namespace, where its services listen.
in_release() {
  local rel=$1 root; shift
  root=$(bash "$HERE/release.sh" "$rel" root)
  [ -e "/run/netns/vtpmctl-$rel" ] && [ -x "$root/opt/devcloud/up.sh" ] ||
    { echo "devcloud/cinder.sh: the $rel cloud is not up: make devcloud-up RELEASE=$rel first" >&2; exit 1; }
  cp -a "$HERE/." "$root/opt/devcloud/"   # this checkout's scripts, as release.sh up copies them
  local env=(/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
    DEVCLOUD_DIR=/var/tmp/vtpmctl-devcloud PG_PKG=postgresql DEVCLOUD_CHROOT="$rel" CEPH_MGR="$CEPH_MGR")
  if [ "$1" = up ]; then chroot "$root" "${env[@]}" bash /opt/devcloud/cinder.sh install; fi
  exec nsenter --net="/run/netns/vtpmctl-$rel" chroot "$root" "${env[@]}" bash /opt/devcloud/cinder.sh "$@"
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0   # sourced by up.sh: functions only

set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CEPH_MGR=${CEPH_MGR:-0}
case ${2:-zed} in
  zed) ;;
  2025.1|2026.1|2026.2) in_release "$2" "$1" ;;
  *) echo "devcloud/cinder.sh: unknown release $2 (zed, 2025.1, 2026.1 or 2026.2)" >&2; exit 2 ;;
esac
case ${1:-} in
  status) . "$HERE/lib.sh"; cinder_status; exit ;;
  up|down|install) DEVCLOUD_FUNCTIONS_ONLY=1 . "$HERE/up.sh" ;;   # its helpers, and the devcloud lock
  *) echo "usage: devcloud/cinder.sh up|down|status [RELEASE]" >&2; exit 2 ;;
esac
if [ "$1" = install ]; then PKGS=$CINDER_PKGS stage_install; exit; fi
curl -s -o /dev/null -m 5 "$KS/v3" && [ -S "$PG_SOCK/.s.PGSQL.5432" ] || {
  echo "devcloud/cinder.sh: the devcloud is not up: make devcloud-up first (or DEVCLOUD_CINDER=1 devcloud/up.sh for both at once)" >&2; exit 1; }
# Does nova-cpu.conf carry conf/nova-cinder.conf.in? (2026.1+ has a
# [service_user] of its own, so look for the template's first line.)
has_nova_cinder() { grep -qsF "$(head -1 "$HERE/conf/nova-cinder.conf.in")" "$E/nova/nova-cpu.conf"; }
if [ "$1" = down ]; then
  cinder_down
  restart=0; has_nova_cinder && restart=1
else
  PKGS=$CINDER_PKGS stage_install
  restart=1; has_nova_cinder && restart=0
  t=$(date +%s.%N)
  ceph_start; cinder_start; cinder_wait
  log "ceph + cinder up in $(awk -v a="$(date +%s.%N)" -v b="$t" 'BEGIN{printf "%.1f", a-b}') s: http://127.0.0.1:$CINDER_PORT/v3"
fi
write_nova_conf
# nova-compute reads the new settings only at start: restart-compute.sh
# (which takes the devcloud lock itself) restarts it and waits for it.
if [ $restart = 1 ] && alive "$(pid_of nova-compute || true)"; then
  exec 9>&-
  exec bash "$HERE/restart-compute.sh"
fi
