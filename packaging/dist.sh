#!/bin/bash
# make dist: vtpmctl for linux/amd64 and arm64 (cgo for libvirt's dlopen,
# glibc the only shared library), its man pages and shell completions, a
# .deb and an .rpm per architecture (nfpm), and SHA256SUMS, into dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
DIST=dist
commit=$(git rev-parse --short=12 HEAD)
# A tag v1.2.3 gives 1.2.3; otherwise a version dpkg and rpm order by date.
VERSION=${VERSION:-$(git describe --tags --exact-match 2>/dev/null | sed 's/^v//' || true)}
VERSION=${VERSION:-0.0.0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$commit}
LDFLAGS="-s -w -X main.version=$VERSION -X main.commit=$commit"

# The arm64 build needs Debian's cross compiler (as root, once).
if ! command -v aarch64-linux-gnu-gcc > /dev/null; then
  echo "dist: installing gcc-aarch64-linux-gnu (Debian)"
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross > /dev/null
fi

rm -rf "$DIST"
mkdir -p "$DIST/share"
for arch in amd64 arm64; do
  cc=gcc
  [ "$arch" = arm64 ] && cc=aarch64-linux-gnu-gcc
  CGO_ENABLED=1 GOOS=linux GOARCH=$arch CC=$cc go build -trimpath -tags libvirt_dlopen -ldflags "$LDFLAGS" \
    -o "$DIST/vtpmctl_linux_$arch" ./cmd/vtpmctl
done
bin=$DIST/vtpmctl_linux_amd64
# vtpmctl.1 (the whole manual) and a page per command (vtpmctl-host-check.1, …)
"$bin" man --dir "$DIST/share/man"
gzip -9n "$DIST"/share/man/*.1
"$bin" completion bash > "$DIST/share/vtpmctl.bash"
"$bin" completion zsh > "$DIST/share/_vtpmctl"
"$bin" completion fish > "$DIST/share/vtpmctl.fish"

for arch in amd64 arm64; do
  for packager in deb rpm; do
    # nfpm expands the environment in version and arch, not in file sources
    sed -e "s|\${BIN}|$DIST/vtpmctl_linux_$arch|" -e "s|\${SHARE}|$DIST/share|" packaging/nfpm.yaml > "$DIST/nfpm.yaml"
    ARCH=$arch VERSION=$VERSION go run "$NFPM" package --config "$DIST/nfpm.yaml" --packager "$packager" --target "$DIST/" > /dev/null
  done
done
rm "$DIST/nfpm.yaml"
(cd "$DIST" && sha256sum vtpmctl_linux_* *.deb *.rpm > SHA256SUMS)
echo "dist: $VERSION ($commit)"
ls -l "$DIST" | sed 1d
