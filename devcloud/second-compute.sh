#!/bin/bash
# A second libvirt nova-compute ("host B", nova host devcloud-b) beside the
# cloud of devcloud/release.sh, so that vTPM guests can be cold-migrated,
# resized (2025.1+) and live-migrated (host mode, from 2026.1) between two
# real libvirt hosts.
#
#   devcloud/second-compute.sh RELEASE up|down|status|in CMD…
#
# Host B is the release's chroot seen through namespaces of its own:
#  * network: namespace vtpmctl-RELEASE-b, a veth pair to the cloud's
#    namespace (vb-a 10.99.26.1/30 there, vb-b 10.99.26.2/30 here). The
#    cloud's catalog and RabbitMQ say 127.0.0.1, so socat relays give B the
#    same endpoints on its own 127.0.0.1: B:127.0.0.1:P -> 10.99.26.1:P ->
#    the cloud's 127.0.0.1:P. Migration traffic (libvirt on 10.99.26.2:16509,
#    QEMU's migration and NBD ports) goes straight over the veth; B → A
#    reaches the cloud's libvirtd through a relay to its socket.
#  * files: a private mount + UTS namespace, held by a `sleep` (the holder),
#    with a tmpfs /run, its own sysfs, and B's own /etc/libvirt,
#    /var/lib/libvirt, /var/cache/libvirt, /var/lib/nova, /tmp, /etc/hosts and
#    /var/tmp/vtpmctl-devcloud (nova config, state, instances, libvirt socket)
#    bound from $BASE/host-b. /dev is the chroot's private one (never the
#    host's). Hostname devcloud-b: libvirt's nodename, so B's Placement
#    provider has a name of its own.
#  * daemons: virtlogd, libvirtd --listen (qemu+tcp, auth none, only on the
#    veth address), nova-compute with host devcloud-b and
#    live_migration_inbound_addr 10.99.26.2. The cloud's own compute is
#    unchanged: it migrates to B with its default qemu+tcp scheme.
#  * ssh from the cloud's compute to B (cold migration and resize: Nova's
#    libvirt driver makes the instance directory on B and copies the disks
#    and the vTPM state over ssh/scp, as root to B's my_ip): sshd on
#    10.99.26.2:22 in B, keys only, its keys and config in the chroot's
#    /etc/ssh/vtpmctl-host-b (host key pinned in the client's known_hosts,
#    the client key accepted only from 10.99.26.1). openssh-server is
#    installed into the chroot (never the host) on first use; policy-rc.d
#    keeps Debian from starting its own sshd.
#
# up is idempotent. down deletes B's leftover servers and its service
# record, stops every process by the PID (and start time) recorded in
# $BASE/host-b/pids or, for what libvirt and nova spawned, by membership of
# B's mount namespace (never by name: the cloud runs the same programs),
# removes the veth and the namespace, and deletes B's state (its nova
# state must not outlive its service record); logs are kept. Run it before
# `release.sh RELEASE down`, whose cleanup knows nothing of B's holder and
# relays. `in CMD…` runs CMD as root inside host B (chrooted).
set -euo pipefail
REL=${1:?usage: devcloud/second-compute.sh RELEASE up|down|status|in CMD…}
CMD=${2:-up}
case $REL in
  2025.1|2026.1|2026.2) ;;
  *) echo "devcloud/second-compute.sh: unknown release $REL (2025.1, 2026.1 or 2026.2)" >&2; exit 2 ;;
esac
BASE=${DEVCLOUD_RELEASES_DIR:-/var/tmp/vtpmctl-releases}/$REL
ROOT=$BASE/root
NS=vtpmctl-$REL                  # the cloud's namespace (compute A, host "devcloud")
NSB=vtpmctl-$REL-b               # host B's
BD=$BASE/host-b                  # everything of host B: state/ (wiped by down), logs/, pids/
S=$BD/state P=$BD/pids LOGS=$BD/logs
HOSTB=devcloud-b
AIP=10.99.26.1 BIP=10.99.26.2    # a /30 that exists only inside the two namespaces
IN_DIR=/var/tmp/vtpmctl-devcloud # DEVCLOUD_DIR inside the chroot
ENV=(PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)
T0=$(date +%s.%N)
log() { printf "[%s host-b %5.1fs] %s\n" "$REL" "$(awk -v a="$(date +%s.%N)" -v b="$T0" 'BEGIN{print a-b}')" "$*"; }

# A recorded PID counts only while it is alive (not a zombie) and has the
# start time recorded with it: a PID reused by someone else's process after
# a crash or a reboot is never signalled.
starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
alive() { [ -n "${1:-}" ] && [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
record() { echo "$2 $(starttime "$2")" > "$P/$1.pid"; }
recorded() {  # NAME -> PID, or nothing
  local pid st
  [ -f "$P/$1.pid" ] || return 0
  read -r pid st < "$P/$1.pid" || true
  alive "$pid" && [ "$(starttime "$pid")" = "$st" ] && echo "$pid"; true
}
holder() { recorded holder; }

# in_a: the cloud's side (its namespace and chroot); in_b: host B's.
in_a() { nsenter --net=/run/netns/$NS chroot "$ROOT" /usr/bin/env -i "${ENV[@]}" OS_CLIENT_CONFIG_FILE=$IN_DIR/clouds.yaml "$@"; }
in_b() { nsenter -t "$(holder)" --mount --uts --net chroot "$ROOT" /usr/bin/env -i "${ENV[@]}" "$@"; }
osc() { in_a openstack --os-cloud devcloud-admin "$@"; }
mapping() { in_a psql -h $IN_DIR/run/pg -U nova -d nova_api -Atc "select 1 from host_mappings where host = '$HOSTB'" 2> /dev/null; }
psql_a() { in_a psql -h $IN_DIR/run/pg -U nova -d nova_cell1 -Atc "$1" 2> /dev/null; }

# start NAME CMD…: detached, in a session of its own (the relays' forked
# children share its process group), output to logs/NAME.out, PID recorded.
start() {
  local name=$1; shift
  [ -n "$(recorded "$name")" ] && return 0
  setsid "$@" >> "$LOGS/$name.out" 2>&1 < /dev/null 9>&- &
  record "$name" $!
}
start_b() { local name=$1; shift; start "$name" nsenter -t "$(holder)" --mount --uts --net chroot "$ROOT" /usr/bin/env -i "${ENV[@]}" "$@"; }

# stop NAME PID [GRACE] [GROUP]: SIGTERM (to its process group with GROUP),
# SIGKILL after GRACE seconds.
stop() {
  local name=$1 pid=$2 t=${3:-10} grp=${4:-} i
  alive "$pid" || return 0
  kill -TERM ${grp:+--} "${grp:+-}$pid" 2> /dev/null || true
  for i in $(seq 1 $((t*10))); do alive "$pid" || { log "stopped $name (pid $pid)"; return 0; }; sleep 0.1; done
  kill -KILL ${grp:+--} "${grp:+-}$pid" 2> /dev/null || true
  log "killed $name (pid $pid) after ${t}s"
}

# put FILE: stdin becomes FILE, replaced only if it is absent or a regular
# file (never through a symlink or over a directory).
put() {
  if [ -L "$1" ] || { [ -e "$1" ] && [ ! -f "$1" ]; }; then log "refusing to replace $1: not a regular file"; exit 1; fi
  rm -f "$1.new"; cat > "$1.new"; mv -fT "$1.new" "$1"
}

# files: host B's own files, made once (a rerun of up keeps them)
files() {
  mkdir -p "$S" "$LOGS/libvirt"
  if [ ! -e "$S/etc-libvirt" ]; then
    # the cloud's libvirt config without its guests and secrets, listening
    # on TCP on the veth address only
    rm -rf "$S/etc-libvirt.new"; cp -a "$ROOT/etc/libvirt" "$S/etc-libvirt.new"
    rm -f "$S"/etc-libvirt.new/qemu/*.xml "$S"/etc-libvirt.new/secrets/*
    sed -i -e 's/^listen_tcp = 0$/listen_tcp = 1/' "$S/etc-libvirt.new/libvirtd.conf"
    printf '# host B: migrations come in over the veth\nauth_tcp = "none"\nlisten_addr = "%s"\n' "$BIP" >> "$S/etc-libvirt.new/libvirtd.conf"
    mv -T "$S/etc-libvirt.new" "$S/etc-libvirt"
  fi
  if [ ! -e "$S/var-lib-libvirt" ]; then
    rm -rf "$S/var-lib-libvirt.new"; cp -a "$ROOT/var/lib/libvirt" "$S/var-lib-libvirt.new"
    rm -rf "$S"/var-lib-libvirt.new/swtpm "$S"/var-lib-libvirt.new/secrets/* "$S"/var-lib-libvirt.new/qemu/domain-* \
      "$S"/var-lib-libvirt.new/qemu/nvram/* "$S"/var-lib-libvirt.new/qemu/save/*
    mv -T "$S/var-lib-libvirt.new" "$S/var-lib-libvirt"
  fi
  # QEMU's capabilities, so B's libvirtd need not probe QEMU again
  [ -e "$S/cache-libvirt" ] || { rm -rf "$S/cache-libvirt.new"; cp -a "$ROOT/var/cache/libvirt" "$S/cache-libvirt.new"; mv -T "$S/cache-libvirt.new" "$S/cache-libvirt"; }
  mkdir -p "$S/log-swtpm" "$S/var-lib-nova" "$S/tmp" "$S"/devcloud/{etc/nova,data/nova/instances,data/nova/lock,logs,run/libvirt}
  chmod 1777 "$S/tmp"
  [ -e "$ROOT/var/log/swtpm" ] && chown --reference="$ROOT/var/log/swtpm" "$S/log-swtpm" && chmod --reference="$ROOT/var/log/swtpm" "$S/log-swtpm"
  # A's libvirtd runs in the machine's UTS namespace and names itself by
  # the machine's hostname: the address QEMU on B dials for A's NBD server
  # and migration port when a guest goes back B -> A.
  printf '127.0.0.1 localhost\n%s %s\n%s devcloud %s\n' "$BIP" "$HOSTB" "$AIP" "$(hostname)" | put "$S/hosts"
  echo "$HOSTB" | put "$S/hostname"
  # nova: the cloud's nova-cpu.conf (no database credentials), then B's own
  put "$S/devcloud/etc/nova/nova-cpu.conf" < "$ROOT$IN_DIR/etc/nova/nova-cpu.conf"
  {
    printf '# host B: read after nova-cpu.conf, so these win\n[DEFAULT]\nhost = %s\nmy_ip = %s\n' "$HOSTB" "$BIP"
    # B is disposable and down stops it with nothing in flight: no graceful
    # wait for in-progress tasks (Nova 2026.1+ waits up to 160 s by default).
    printf 'graceful_shutdown_timeout = 10\nmanager_shutdown_timeout = 0\n'
    printf '[libvirt]\nlive_migration_inbound_addr = %s\n' "$BIP"
    # every mode, whatever a test left in the cloud's own compute
    if grep -qs supported_tpm_secret_security "$ROOT/usr/lib/python3/dist-packages/nova/conf/libvirt.py"; then
      echo 'supported_tpm_secret_security = user,host,deployment'
    fi
  } | put "$S/devcloud/etc/nova/nova-b.conf"
}

# ns_init: the script the holder runs in the new mount + UTS namespace
ns_init() {
  # every path printf %q-quoted: the script is bash source
  local R Sq L I H
  R=$(printf %q "$ROOT"); Sq=$(printf %q "$S"); L=$(printf %q "$LOGS"); I=$(printf %q "$IN_DIR"); H=$(printf %q "$HOSTB")
  cat <<EOS
#!/bin/bash
set -e
mount -t tmpfs -o mode=755,size=256m vtpmctl-b-run $R/run
mkdir -p $R/run/lock; chmod 1777 $R/run/lock
mount -t sysfs sysfs $R/sys   # this namespace's: nova and libvirt see B's interfaces
for m in etc-libvirt:/etc/libvirt var-lib-libvirt:/var/lib/libvirt cache-libvirt:/var/cache/libvirt \\
         log-swtpm:/var/log/swtpm var-lib-nova:/var/lib/nova tmp:/tmp hosts:/etc/hosts hostname:/etc/hostname \\
         devcloud:$I; do
  [ -e $R"\${m#*:}" ] || mkdir -p $R"\${m#*:}"
  mount --bind $Sq/"\${m%%:*}" $R"\${m#*:}"
done
mount --bind $L $R$I/logs
mkdir -p $R/var/log/libvirt; mount --bind $L/libvirt $R/var/log/libvirt
hostname $H
touch $Sq/ns-ready
exec sleep infinity
EOS
}

relay_ports() {
  local p="5000 5672 8774 8778 9292 9311 9696"   # keystone rabbitmq nova placement glance barbican neutron stand-in
  [ -f "$ROOT$IN_DIR/data/cinder/.enabled" ] && p="$p 8776"
  echo "$p"
}

SSHD=/etc/ssh/vtpmctl-host-b   # inside the chroot: B's sshd and A's client

# ssh_files: openssh-server in the chroot, B's host key, A's client key,
# both configs (made once; down removes them)
ssh_files() {
  if [ ! -x "$ROOT/usr/sbin/sshd" ]; then
    log "installing openssh-server into the $REL chroot"
    # the installed client's version where the lists still have it: no
    # upgrade of libraries under the cloud's running daemons
    local v apt=(chroot "$ROOT" /usr/bin/env -i "${ENV[@]}" DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq)
    v=$(chroot "$ROOT" dpkg-query -W -f='${Version}' openssh-client 2> /dev/null || true)
    { [ -n "$v" ] && "${apt[@]}" "openssh-server=$v" "openssh-sftp-server=$v"; } > "$LOGS/apt-sshd.log" 2>&1 ||
      "${apt[@]}" openssh-server >> "$LOGS/apt-sshd.log" 2>&1 ||
      { log "cannot install openssh-server into the chroot; see $LOGS/apt-sshd.log"; exit 1; }
  fi
  local k=$ROOT$SSHD f ok=1
  [ -L "$k" ] && { log "refusing $k: a symlink"; exit 1; }
  for f in "$k/host_ed25519" "$k/id_ed25519" "$k/authorized_keys" "$k/sshd_config" "$k/known_hosts" \
           "$ROOT/etc/ssh/ssh_config.d/vtpmctl-host-b.conf"; do
    [ -f "$f" ] && [ ! -L "$f" ] || ok=0
  done
  [ $ok = 1 ] && return 0
  mkdir -p "$k"; chmod 700 "$k"
  rm -f "$k/host_ed25519" "$k/host_ed25519.pub" "$k/id_ed25519" "$k/id_ed25519.pub"
  chroot "$ROOT" ssh-keygen -q -t ed25519 -N '' -C "$HOSTB host key" -f "$SSHD/host_ed25519"
  chroot "$ROOT" ssh-keygen -q -t ed25519 -N '' -C "nova-compute of devcloud" -f "$SSHD/id_ed25519"
  echo "from=\"$AIP\",no-agent-forwarding,no-port-forwarding,no-X11-forwarding $(cat "$k/id_ed25519.pub")" | put "$k/authorized_keys"
  cat <<EOC | put "$k/sshd_config"
# host B's sshd (devcloud/second-compute.sh): root by key, from host A only
ListenAddress $BIP
HostKey $SSHD/host_ed25519
AuthorizedKeysFile $SSHD/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile none
Subsystem sftp /usr/lib/openssh/sftp-server
EOC
  cat <<EOC | put "$ROOT/etc/ssh/ssh_config.d/vtpmctl-host-b.conf"
# nova-compute of the cloud to host B (devcloud/second-compute.sh)
Host $BIP $HOSTB
  User root
  IdentityFile $SSHD/id_ed25519
  UserKnownHostsFile $SSHD/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 10
EOC
  echo "$BIP $(cut -d' ' -f1,2 "$k/host_ed25519.pub")" | put "$k/known_hosts"
}

# ssh_start: B's sshd, up once the cloud's compute runs a command on B
ssh_start() {
  in_b mkdir -p /run/sshd
  start_b sshd /usr/sbin/sshd -D -e -f $SSHD/sshd_config
  local i
  for i in $(seq 1 40); do
    [ "$(in_a ssh "$BIP" hostname 2> /dev/null)" = "$HOSTB" ] && { log "ssh root@$BIP from the cloud's compute works"; return 0; }
    [ -n "$(recorded sshd)" ] || break
    sleep 0.25
  done
  log "ssh from the cloud's compute to $BIP fails; see $LOGS/sshd.out"; exit 1
}

ssh_remove() {
  rm -f "$ROOT/etc/ssh/ssh_config.d/vtpmctl-host-b.conf"
  case $ROOT$SSHD in */root/etc/ssh/vtpmctl-host-b) [ -L "$ROOT$SSHD" ] || rm -rf "$ROOT$SSHD" ;; esac
}

up() {
  [ -e /run/netns/$NS ] && [ -f "$ROOT$IN_DIR/clouds.yaml" ] || { log "the $REL cloud is not up: bash devcloud/release.sh $REL up"; exit 1; }
  mkdir -p "$P" "$LOGS"
  # A cloud restarted under a running B left B half-connected: start over.
  if ! ip -n "$NS" link show vb-a > /dev/null 2>&1 && [ -n "$(holder)$(recorded relay-a-5000)" ]; then
    log "the cloud was restarted under host B: taking B down first"; down
  fi

  # 1. network
  [ -e /run/netns/$NSB ] || { ip netns add "$NSB"; log "netns $NSB"; }
  ip -n "$NSB" link set lo up
  ip -n "$NS" link show vb-a > /dev/null 2>&1 || ip -n "$NS" link add vb-a type veth peer name vb-b netns "$NSB"
  # (no `| grep -q` under pipefail: ip's SIGPIPE would read as "absent")
  case $(ip -n "$NS" addr show dev vb-a) in *" $AIP/30 "*) ;; *) ip -n "$NS" addr add "$AIP/30" dev vb-a ;; esac
  case $(ip -n "$NSB" addr show dev vb-b) in *" $BIP/30 "*) ;; *) ip -n "$NSB" addr add "$BIP/30" dev vb-b ;; esac
  ip -n "$NS" link set vb-a up; ip -n "$NSB" link set vb-b up

  # 2. relays for the control plane, both hops over the veth
  local port
  for port in $(relay_ports); do
    start relay-a-$port nsenter --net=/run/netns/$NS socat TCP-LISTEN:$port,bind=$AIP,reuseaddr,fork TCP:127.0.0.1:$port
    start relay-b-$port nsenter --net=/run/netns/$NSB socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork TCP:$AIP:$port
  done
  # and back: the cloud's libvirtd listens on no TCP port (its config is
  # the suite's), so B reaches it as qemu+tcp://devcloud/system through a
  # relay to its socket (the same RPC; libvirtd sees a local root client).
  # Migration data and NBD go straight to QEMU on A's veth address.
  # Only B may connect (range=): the socket is root's libvirtd.
  start relay-a-libvirt nsenter --net=/run/netns/$NS socat TCP-LISTEN:16509,bind=$AIP,range=$BIP/32,reuseaddr,fork UNIX-CONNECT:"$ROOT$IN_DIR/run/libvirt/libvirt-sock"

  # 3. files, 4. the mount + UTS namespace
  files
  ssh_files
  if [ -z "$(holder)" ]; then
    rm -f "$S/ns-ready"
    ns_init | put "$S/ns-init.sh"
    # unshare from outside the chroot: inside it "/" is no mount point
    start holder nsenter --net=/run/netns/$NSB unshare --mount --uts --propagation private /bin/bash "$S/ns-init.sh"
    for _ in $(seq 1 50); do [ -f "$S/ns-ready" ] && break; sleep 0.1; done
    [ -f "$S/ns-ready" ] || { log "host B's namespace failed; see $LOGS/holder.out"; exit 1; }
    readlink "/proc/$(holder)/ns/mnt" > "$P/mntns"
    log "namespaces held by pid $(holder)"
  fi

  # 5. libvirt, reachable from the cloud's namespace over qemu+tcp
  start_b virtlogd /usr/sbin/virtlogd --pid-file $IN_DIR/run/virtlogd.pid
  start_b libvirtd /usr/sbin/libvirtd --listen --pid-file $IN_DIR/run/libvirtd.pid
  local i name=""
  for i in $(seq 1 240); do
    name=$(in_a virsh -c "qemu+tcp://$BIP/system" hostname 2> /dev/null || true)
    [ "$name" = "$HOSTB" ] && break
    [ -n "$(recorded libvirtd)" ] || { log "libvirtd of host B died; see $LOGS/libvirtd.out and $LOGS/libvirt/"; exit 1; }
    [ $i = 240 ] && { log "libvirtd of host B does not answer on qemu+tcp://$BIP/system"; exit 1; }
    sleep 0.25
  done

  ssh_start

  # 6. nova-compute. Ready once it has reported to the database after this
  # start: report_state runs only after init_host, with its RPC servers
  # listening (nova/service.py start).
  local before count id
  if [ -z "$(recorded nova-compute)" ]; then
    # A service record of an earlier B whose state is gone (the cloud went
    # down under it): Nova would refuse the new node's identity for the
    # same host, so the record goes first.
    if [ ! -e "$S/devcloud/data/nova/compute_id" ]; then
      for id in $(psql_a "select uuid from services where host = '$HOSTB' and \"binary\" = 'nova-compute' and deleted = 0"); do
        osc --os-compute-api-version 2.53 compute service delete "$id" > /dev/null && log "deleted the stale compute service $id of an earlier host B"
      done
    fi
    before=$(psql_a "select coalesce(max(report_count), -1) from services where host = '$HOSTB' and \"binary\" = 'nova-compute' and deleted = 0")
    before=${before:--1}
    start_b nova-compute nova-compute --config-file $IN_DIR/etc/nova/nova-cpu.conf --config-file $IN_DIR/etc/nova/nova-b.conf \
      --log-file $IN_DIR/logs/nova-compute.log
    log "started nova-compute (pid $(recorded nova-compute))"
  else
    before=-1
  fi
  for i in $(seq 1 600); do
    count=$(psql_a "select count(*) from compute_nodes where host = '$HOSTB' and deleted = 0")
    [ "${count:-0}" -ge 1 ] && break
    [ -n "$(recorded nova-compute)" ] || { log "nova-compute of host B died; see $LOGS/nova-compute.log"; exit 1; }
    [ $i = 600 ] && { log "nova-compute of host B did not register in 150 s; see $LOGS/nova-compute.log"; exit 1; }
    sleep 0.25
  done
  log "compute node $HOSTB registered"
  # The scheduler maps new hosts every 30 s; nova-manage may be quicker (or,
  # on a busy machine, slower: whichever maps the host first wins).
  local mapper="" mapped=""
  if [ -z "$(mapping)" ]; then
    in_a nova-manage --config-file $IN_DIR/etc/nova/nova.conf cell_v2 discover_hosts > /dev/null 2>&1 &
    mapper=$!
  fi
  for i in $(seq 1 600); do
    [ -z "$mapped" ] && [ -n "$(mapping)" ] && { mapped=1; log "host $HOSTB mapped to its cell"; }
    count=$(psql_a "select coalesce(max(report_count), -1) from services where host = '$HOSTB' and \"binary\" = 'nova-compute' and deleted = 0")
    [ -n "$mapped" ] && [ "${count:--1}" -gt "$before" ] && break
    [ -n "$(recorded nova-compute)" ] || { log "nova-compute of host B died; see $LOGS/nova-compute.log"; exit 1; }
    [ $i = 600 ] && { log "nova-compute of host B did not report or was not mapped in 150 s; see $LOGS/nova-compute.log"; exit 1; }
    sleep 0.25
  done
  # our own child, no longer needed once the host is mapped
  [ -n "$mapper" ] && { kill -TERM "$mapper" 2> /dev/null; wait "$mapper" 2> /dev/null; } || true
  log "up: host $HOSTB (libvirt qemu+tcp://$BIP/system), $(pss) MiB PSS; logs in $LOGS"
}

# B's processes: those in the holder's mount namespace (libvirtd, virtlogd,
# nova-compute and what they spawned: QEMU, swtpm, privsep helpers).
b_procs() {
  local h m d; h=$(holder)
  if [ -n "$h" ]; then
    m=$(readlink "/proc/$h/ns/mnt")
  else
    # The holder died (OOM, a kill, a failed up): what libvirtd spawned
    # may still run in its namespace. A freed namespace number can be
    # reused, so only processes whose root is also B's chroot count.
    m=$(cat "$P/mntns" 2> /dev/null) || return 0
    [ -n "$m" ] || return 0
    ls -l /proc/[0-9]*/ns/mnt 2> /dev/null | awk -v m="$m" '$NF == m { split($(NF-2), p, "/"); print p[3] }' |
      while read -r d; do [ "$(readlink "/proc/$d/root" 2> /dev/null)" = "$ROOT" ] && echo "$d"; done
    return 0
  fi
  # one ls for all (a readlink per process takes seconds on a busy machine)
  ls -l /proc/[0-9]*/ns/mnt 2> /dev/null | awk -v m="$m" -v h="$h" '$NF == m { split($(NF-2), p, "/"); if (p[3] != h) print p[3] }'
}

pss() {
  local p f sum=0 v
  for p in $( { b_procs; for f in "$P"/*.pid; do [ -e "$f" ] && recorded "$(basename "$f" .pid)"; done; } | sort -u); do
    v=$(awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup" 2> /dev/null || true); sum=$((sum + ${v:-0}))
  done
  echo $((sum / 1024))
}

down() {
  local cloud=0 id p f
  [ -e /run/netns/$NS ] && [ -x "$ROOT/usr/bin/psql" ] && cloud=1
  if [ $cloud = 1 ] && [ -n "$(psql_a "select 1 from services where host = '$HOSTB' and deleted = 0 limit 1")" ]; then
    # servers a test left on B, then the compute service (Nova deletes its
    # node and Placement provider with it)
    for id in $(psql_a "select uuid from instances where host = '$HOSTB' and deleted = 0"); do
      osc server delete --wait "$id" > /dev/null 2>&1 && log "deleted server $id" || log "could not delete server $id"
    done
  fi
  # Nothing is in flight on B now, and with manager_shutdown_timeout = 0
  # (nova-b.conf) Nova 2026.1+ ends its graceful shutdown within seconds
  # instead of waiting 40 s and more: no need to kill it (the kill after 15 s
  # is the fallback).
  stop nova-compute "$(recorded nova-compute)" 15
  if [ $cloud = 1 ]; then
    for id in $(psql_a "select uuid from services where host = '$HOSTB' and \"binary\" = 'nova-compute' and deleted = 0"); do
      osc --os-compute-api-version 2.53 compute service delete "$id" > /dev/null && log "deleted compute service $id"
    done
    local rpdb=$ROOT$IN_DIR/data/placement/placement.sqlite rp
    rp=$(in_a sqlite3 "$IN_DIR/data/placement/placement.sqlite" "select uuid from resource_providers where name = '$HOSTB'" 2> /dev/null || true)
    [ -n "$rp" ] && [ -f "$rpdb" ] && osc resource provider delete "$rp" > /dev/null 2>&1 && log "deleted resource provider $rp"
  fi
  if [ -n "$(holder)" ] && [ -n "$(recorded libvirtd)" ]; then
    local V="virsh -c qemu+unix:///system?socket=$IN_DIR/run/libvirt/libvirt-sock" d
    for d in $(in_b $V list --name 2> /dev/null); do in_b $V destroy "$d" > /dev/null 2>&1 && log "destroyed domain $d"; done
  fi
  stop libvirtd "$(recorded libvirtd)"; stop virtlogd "$(recorded virtlogd)"; stop sshd "$(recorded sshd)"
  ssh_remove
  for p in $(b_procs); do stop "$(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c1-50)" "$p" 5; done
  stop holder "$(holder)" 5
  # the relays (and the children they forked per connection): their
  # process groups, all at once
  local relays=""
  for f in "$P"/relay-*.pid; do [ -e "$f" ] && relays="$relays $(recorded "$(basename "$f" .pid)")"; done
  for p in $relays; do kill -TERM -- "-$p" 2> /dev/null || true; done
  for p in $relays; do stop "relay (pid $p)" "$p" 5 group > /dev/null; done
  [ -n "$relays" ] && log "stopped $(echo $relays | wc -w) relays"
  rm -f "$P"/*.pid
  ip -n "$NS" link del vb-a 2> /dev/null && log "veth vb-a/vb-b deleted" || true
  [ -e /run/netns/$NSB ] && ip netns del "$NSB" && log "netns $NSB deleted"
  # The holder is gone, so are B's mounts: state/ is plain files again.
  case $S in */host-b/state) rm -rf "$S" ;; esac
  log "down: $(b_procs | wc -l) processes of host B left, logs kept in $LOGS"
  rm -f "$P/mntns"
}

status() {
  local n pid rc=0
  for n in holder virtlogd libvirtd sshd nova-compute; do
    pid=$(recorded $n)
    if [ -n "$pid" ]; then printf '%-14s up    pid %s\n' "$n" "$pid"; else printf '%-14s DOWN\n' "$n"; rc=1; fi
  done
  [ -e /run/netns/$NS ] && psql_a "select 'nova-compute service: ' || host || ', ' || (case when disabled then 'disabled' else 'enabled' end) || ', last report ' || updated_at from services where host = '$HOSTB' and deleted = 0"
  return $rc
}

# One operation on host B at a time; the lock lives outside $BD.
mkdir -p "$BASE"
exec 9> "$BASE/host-b.lock"
flock 9
case $CMD in
  up) up ;;
  down) down ;;
  status) status ;;
  in) shift 2; [ -n "$(holder)" ] || { echo "host B of $REL is not up: bash devcloud/second-compute.sh $REL up" >&2; exit 1; }
    exec 9>&-; in_b "$@" ;;
  *) echo "usage: devcloud/second-compute.sh RELEASE up|down|status|in CMD…" >&2; exit 2 ;;
esac
