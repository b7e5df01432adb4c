#!/bin/bash
# make dist-test: install the .deb in a fresh Debian (debootstrap minbase,
# no libvirt) and run vtpmctl there: --version, a Nova decision, and host
# check (libvirt absent: one failing check, not a crash). Nothing of the
# host is mounted into the chroot; the chroot is removed at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE=${SUITE:-bookworm}
# the machine's own mirror (or $VTPMCTL_DEBIAN_MIRROR / $MIRROR), never a public default
MIRROR=$(devcloud/debian-mirror.sh)
deb=$(ls dist/vtpmctl_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "dist-test: no dist/*.deb: run make dist first" >&2; exit 2; }
command -v debootstrap > /dev/null || {
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends debootstrap > /dev/null
}
root=$(mktemp -d /var/tmp/vtpmctl-dist-test.XXXXXX)
cleanup() {
  # only what this script made: a directory with nothing mounted in it
  if ! grep -q " $root" /proc/mounts; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT
start=$(date +%s)
debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" > "$root.log" 2>&1 || { tail -5 "$root.log"; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
echo "dist-test: $SUITE minbase in $(( $(date +%s) - start ))s"
cp "$deb" "$root/tmp/vtpmctl.deb"
chroot "$root" dpkg -i /tmp/vtpmctl.deb > /dev/null
fail() { echo "dist-test: $*" >&2; exit 1; }

out=$(chroot "$root" /usr/bin/vtpmctl --version)
echo "dist-test: $out"
case $out in "vtpmctl version "*"(commit "*) ;; *) fail "--version printed: $out" ;; esac

out=$(chroot "$root" /usr/bin/vtpmctl check --image-property hw_tpm_version=2.0 --flavor-spec hw:tpm_model=tpm-crb --nova-release 2025.1 -f value -c result -c vtpm -c version -c model)
[ "$(echo $out)" = "accepted yes 2.0 tpm-crb" ] || fail "check printed: $out"
echo "dist-test: check: $(echo $out)"

# A compute node's nova.conf (host check refuses to guess one).
mkdir -p "$root/etc/nova"
printf '[DEFAULT]\nhost = dist-test\n[libvirt]\nvirt_type = kvm\nswtpm_enabled = True\n' > "$root/etc/nova/nova.conf"
set +e
out=$(chroot "$root" /usr/bin/vtpmctl host check --nova-release 2025.1 -f json 2>/dev/null); rc=$?
set -e
[ $rc = 1 ] || fail "host check without libvirt exited $rc (want 1: a failing check)"
grep -q '"id": "LIBVIRT"' <<< "$out" || fail "host check JSON has no LIBVIRT check: $out"
libvirt=$(echo "$out" | grep -A2 '"id": "LIBVIRT"' | sed -n 's/.*"message": "\(.*\)",*/\1/p')
echo "dist-test: host check without libvirt: exit 1; LIBVIRT: $libvirt"

for f in /usr/share/man/man1/vtpmctl.1.gz /usr/share/man/man1/vtpmctl-host-check.1.gz /usr/share/doc/vtpmctl/docs/hosts.md /usr/share/doc/vtpmctl/docs/cli/vtpmctl_host_check.md /usr/share/doc/vtpmctl/docs/schemas/README.md /usr/share/doc/vtpmctl/examples/catalogue.yaml /usr/share/doc/vtpmctl/LICENSE /usr/share/bash-completion/completions/vtpmctl /usr/share/zsh/vendor-completions/_vtpmctl /usr/share/fish/vendor_completions.d/vtpmctl.fish; do
  [ -s "$root$f" ] || fail "$f not installed"
done
chroot "$root" dpkg -r vtpmctl > /dev/null
[ ! -e "$root/usr/bin/vtpmctl" ] || fail "dpkg -r left /usr/bin/vtpmctl"
echo "dist-test: installed, ran and removed in $(( $(date +%s) - start ))s"

# The .rpm: no RPM distribution here, so rpm reads it: digests, requires, files.
command -v rpm > /dev/null || {
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends rpm > /dev/null
}
for f in dist/vtpmctl-*.rpm; do
  rpm -K --nosignature "$f" > /dev/null || fail "$f: digests do not verify"
  # rpm's whole output first: under pipefail, grep -q leaving early would
  # kill rpm with SIGPIPE and fail the check for a package that passes.
  grep -q '^glibc >= 2.34' <<< "$(rpm -qpR "$f" 2>/dev/null)" || fail "$f does not require glibc >= 2.34"
  grep -qx /usr/bin/vtpmctl <<< "$(rpm -qpl "$f" 2>/dev/null)" || fail "$f has no /usr/bin/vtpmctl"
done
echo "dist-test: rpm -K and contents of $(ls dist/vtpmctl-*.rpm | wc -l) .rpm packages"
