#!/bin/bash
# A local cloud of a newer OpenStack release beside the Zed one: Debian's
# packages of that release in a debootstrap chroot, in a network namespace
# of its own, so its services listen on 127.0.0.1 inside the namespace and
# nothing clashes with the Zed cloud on the host. Inside, devcloud/up.sh
# builds the same cloud as on the host (same services, users, clouds.yaml
# entries, availability zones "libvirt" and "fake").
#
#   devcloud/release.sh RELEASE up|down|status|wipe|in CMD…
#   RELEASE: 2025.1 (trixie, nova 31), 2026.1 (forky + glance/placement from sid, nova 33), 2026.2 (sid, nova 34)
#
# vtpmctl reaches it as a user reaches a remote cloud, through its
# clouds.yaml, from inside the namespace: `devcloud/release.sh 2025.1 in
# vtpmctl --os-cloud devcloud-admin …` or `ip netns exec vtpmctl-2025.1 …`
# with OS_CLIENT_CONFIG_FILE=$(devcloud/release.sh 2025.1 clouds).
# Traffic never leaves the machine. The chroot is kept between runs (about
# 1.8 GB) and rebuilt when its suite's package lists change.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REL=${1:?usage: devcloud/release.sh RELEASE up|down|status|wipe|clouds|in CMD…}
CMD=${2:-up}
case $REL in
  2025.1) SUITE=trixie ;;
  2026.1) SUITE=forky ;;
  2026.2) SUITE=sid ;;
  *) echo "devcloud/release.sh: unknown release $REL (2025.1, 2026.1 or 2026.2; zed is devcloud/up.sh)" >&2; exit 2 ;;
esac
# The machine's own Debian mirror (VTPMCTL_DEBIAN_MIRROR overrides); no
# public default: an air-gapped site has only its own.
MIRROR=$("$HERE/debian-mirror.sh") || exit 2
BASE=${DEVCLOUD_RELEASES_DIR:-/var/tmp/vtpmctl-releases}/$REL
ROOT=$BASE/root
NS=vtpmctl-$REL
IN_DIR=/var/tmp/vtpmctl-devcloud   # DEVCLOUD_DIR inside the chroot
T0=$(date +%s)
log() { printf "[%s %4ss] %s\n" "$REL" "$(( $(date +%s) - T0 ))" "$*"; }

ENV=(PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEVCLOUD_DIR=$IN_DIR PG_PKG=postgresql DEVCLOUD_CHROOT=$REL DEVCLOUD_CINDER=${DEVCLOUD_CINDER:-})
in_ns() {  # run CMD in the namespace and the chroot, env cleaned
  nsenter --net=/run/netns/$NS chroot "$ROOT" /usr/bin/env -i "${ENV[@]}" "$@"
}
in_chroot() {  # the chroot with the host's network: apt only
  chroot "$ROOT" /usr/bin/env -i "${ENV[@]}" "$@"
}

# Processes whose root is the chroot: the only ones down may stop (never by
# name: the Zed cloud runs the same programs).
in_root() {
  local d
  for d in /proc/[0-9]*; do [ "$(readlink "$d/root" 2>/dev/null)" = "$ROOT" ] && echo "${d#/proc/}"; done; true
}

bootstrap() {
  local stamp=$BASE/packages.stamp lists
  mkdir -p "$BASE"
  if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
    # a fresh machine has no debootstrap (make test's dist-test installs it
    # too, but `make integration` alone must not depend on that)
    command -v debootstrap > /dev/null || { apt-get -o DPkg::Lock::Timeout=900 update -qq && \
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends debootstrap > /dev/null; } \
      || { log "cannot install debootstrap"; exit 1; }
    log "debootstrap $SUITE from $MIRROR"
    local script=/usr/share/debootstrap/scripts/$SUITE
    [ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid   # bookworm's debootstrap has no forky script
    debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" "$script" > "$BASE/debootstrap.log" 2>&1 \
      || { log "debootstrap failed (the archive may be broken today); see $BASE/debootstrap.log"; exit 3; }
    printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"; chmod 755 "$ROOT/usr/sbin/policy-rc.d"
    printf 'path-exclude=/usr/share/doc/*\npath-include=/usr/share/doc/*/copyright\npath-exclude=/usr/share/man/*\npath-exclude=/usr/share/locale/*\n' > "$ROOT/etc/dpkg/dpkg.cfg.d/01nodoc"
    # the chroot's service accounts must not take the host's UIDs
    printf 'FIRST_SYSTEM_UID=30100\nLAST_SYSTEM_UID=30999\nFIRST_SYSTEM_GID=30100\nLAST_SYSTEM_GID=30999\n' >> "$ROOT/etc/adduser.conf"
    if [ "$SUITE" = forky ]; then
      # forky has no glance; sid's needs oslo.policy 6, so placement comes from sid too
      echo "deb $MIRROR sid main" > "$ROOT/etc/apt/sources.list.d/sid.list"
      printf 'Package: *\nPin: release n=sid\nPin-Priority: 100\n\nPackage: glance* python3-glance* placement* python3-placement* python3-oslo.policy\nPin: release n=sid\nPin-Priority: 990\n' > "$ROOT/etc/apt/preferences.d/sid"
    fi
  fi
  # keep our adduser.conf (and any conffile) without a prompt
  printf 'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nDpkg::Options { "--force-confdef"; "--force-confold"; };\n' > "$ROOT/etc/apt/apt.conf.d/99vtpmctl"
  mounts
  chroot "$ROOT" apt-get update -qq > "$BASE/apt-update.log" 2>&1 || { log "apt-get update failed; see $BASE/apt-update.log"; exit 3; }
  lists=$(cat "$ROOT"/var/lib/apt/lists/*_Packages* 2>/dev/null | md5sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lists" ]; then log "chroot up to date"; return; fi
  rm -f "$ROOT/var/tmp/vtpmctl-devcloud/.installed"
  echo "$lists" > "$stamp.new"
}

# A private /dev (never the host's), proc, the namespace's sysfs, a tmpfs /run.
mounts() {
  [ -e /run/netns/$NS ] || { ip netns add "$NS"; ip netns exec "$NS" ip link set lo up; }
  mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
  mountpoint -q "$ROOT/sys" || nsenter --net=/run/netns/$NS mount -t sysfs sysfs "$ROOT/sys"
  local d=$ROOT/dev
  mountpoint -q "$d" || mount -t tmpfs -o mode=755,size=16m,nosuid vtpmctl-dev "$d"
  ( cd "$d"
    for n in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do set -- $n; [ -e "$1" ] || mknod -m 666 "$1" c "$2" "$3"; done
    [ -e kvm ] || { [ -e /dev/kvm ] && mknod -m 660 kvm c 10 232; } || true
    mkdir -p net pts shm; chmod 1777 shm
    [ -e net/tun ] || mknod -m 666 net/tun c 10 200
    for l in "fd /proc/self/fd" "stdin /proc/self/fd/0" "stdout /proc/self/fd/1" "stderr /proc/self/fd/2" "ptmx pts/ptmx"; do set -- $l; [ -e "$1" ] || ln -s "$2" "$1"; done )
  mountpoint -q "$d/pts" || mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts "$d/pts"
  mountpoint -q "$d/shm" || mount -t tmpfs -o mode=1777,size=1g shm "$d/shm"
  mountpoint -q "$ROOT/run" || mount -t tmpfs -o mode=755,size=256m tmpfs "$ROOT/run"
  mkdir -p "$ROOT/run/lock"; chmod 1777 "$ROOT/run/lock"
  grep -q '^127.0.0.1[[:space:]]*localhost' "$ROOT/etc/hosts" 2>/dev/null || echo "127.0.0.1 localhost" >> "$ROOT/etc/hosts"
  grep -q "$(hostname)" "$ROOT/etc/hosts" 2>/dev/null || echo "127.0.1.1 $(hostname)" >> "$ROOT/etc/hosts"
}

umounts() {
  local m i
  # a process that has just exited may still hold a mount for a moment
  for m in dev/shm dev/pts dev run sys proc; do
    for i in 1 2 3 4 5 6 7 8 9 10; do
      mountpoint -q "$ROOT/$m" || break
      umount "$ROOT/$m" 2> /dev/null && break
      sleep 0.5
    done
    mountpoint -q "$ROOT/$m" && log "cannot unmount $ROOT/$m (busy)"
  done; true
}

up() {
  bootstrap
  rm -rf "$ROOT/opt/devcloud"; cp -a "$HERE" "$ROOT/opt/devcloud"
  # Packages come in over the host's network (the namespace has none)…
  in_chroot /bin/bash /opt/devcloud/up.sh install 2>&1 | sed -u "s/^/[$REL] /"
  # /dev/kvm as a real host has it (root:kvm 0660). Unreadable by QEMU's
  # group, libvirt 11 (trixie) re-probes QEMU on every capabilities call:
  # 4-8 s each, so every nova-compute start and every spawn took minutes.
  local kvm
  kvm=$(chroot "$ROOT" getent group kvm | cut -d: -f3)
  [ -n "$kvm" ] && [ -e "$ROOT/dev/kvm" ] && chgrp "$kvm" "$ROOT/dev/kvm"
  # …and the cloud runs inside the namespace.
  log "devcloud/up.sh inside the chroot and namespace"
  in_ns /bin/bash /opt/devcloud/up.sh 2>&1 | sed -u "s/^/[$REL] /"
  [ -f "$BASE/packages.stamp.new" ] && mv "$BASE/packages.stamp.new" "$BASE/packages.stamp"
  log "up: OS_CLIENT_CONFIG_FILE=$ROOT$IN_DIR/clouds.yaml inside namespace $NS"
}

down() {
  local p i left
  if [ -x "$ROOT/opt/devcloud/down.sh" ] && [ -e /run/netns/$NS ]; then
    in_ns /bin/bash /opt/devcloud/down.sh 2>&1 | sed -u "s/^/[$REL] /" || true
  fi
  for i in $(seq 1 10); do left=$(in_root); [ -z "$left" ] && break; for p in $left; do kill -TERM "$p" 2>/dev/null; done; sleep 1; done
  for p in $(in_root); do kill -KILL "$p" 2>/dev/null; done
  umounts
  [ -e /run/netns/$NS ] && ip netns del "$NS"
  log "down: $(in_root | wc -l) processes left, $(grep -c " $ROOT/" /proc/self/mountinfo || true) mounts left"
}

case $CMD in
  up) up ;;
  bootstrap) bootstrap ;;
  down) down ;;
  wipe) down; rm -rf "$ROOT$IN_DIR"
    # the chroot's libvirtd keeps its guests, secrets and TPM state in the
    # chroot's own /etc and /var: a new database must not meet old guests
    rm -rf "$ROOT"/etc/libvirt/qemu/*.xml "$ROOT"/etc/libvirt/secrets/* "$ROOT"/var/lib/libvirt/swtpm \
      "$ROOT"/var/lib/libvirt/qemu/nvram/* "$ROOT"/var/lib/libvirt/qemu/domain-* "$ROOT"/var/log/swtpm/libvirt/qemu/*
    log "wiped the cloud's data (the chroot is kept; rm -rf $BASE removes it)" ;;
  status) if [ -e /run/netns/$NS ]; then in_ns /bin/bash /opt/devcloud/status.sh; else echo "$REL: down"; exit 1; fi ;;
  clouds) echo "$ROOT$IN_DIR/clouds.yaml" ;;
  root) echo "$ROOT" ;;
  restart-compute) shift 2; rm -rf "$ROOT/opt/devcloud"; cp -a "$HERE" "$ROOT/opt/devcloud"
    in_ns /bin/bash /opt/devcloud/restart-compute.sh "$@" ;;
  in) shift 2; nsenter --net=/run/netns/$NS env OS_CLIENT_CONFIG_FILE="$ROOT$IN_DIR/clouds.yaml" "$@" ;;
  *) echo "usage: devcloud/release.sh RELEASE up|down|status|wipe|clouds|root|restart-compute ARGS|in CMD…" >&2; exit 2 ;;
esac
