#!/bin/bash
# Tag N images and set specs on M flavors with vtpmctl, then the same with
# an `openstack image set` / `openstack flavor set` loop, on the local
# cloud, back to back. Run by `make bench` (after devcloud-up and build).
#   N=200 M=100 bench/vs_openstack.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200} M=${M:-100}
DEVCLOUD_DIR=${DEVCLOUD_DIR:-/var/tmp/vtpmctl-devcloud}
export OS_CLIENT_CONFIG_FILE=$DEVCLOUD_DIR/clouds.yaml OS_CLOUD=devcloud-admin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
V=$PWD/bin/vtpmctl
RUN=bench$$
TOK=$(openstack token issue -f value -c id)
H=(-s -H "X-Auth-Token: $TOK" -H 'Content-Type: application/json')
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN{printf "%.1f", a-b}'; }

cleanup() {
  curl "${H[@]}" "http://127.0.0.1:9292/v2/images?limit=1000&bench_run=$RUN" | jq -r '.images[].id' |
    xargs -r -P8 -I{} curl "${H[@]}" -o /dev/null -X DELETE "http://127.0.0.1:9292/v2/images/{}"
  curl "${H[@]}" "http://127.0.0.1:8774/v2.1/flavors?is_public=None" | jq -r ".flavors[] | select(.name|startswith(\"$RUN-\")) | .id" |
    xargs -r -P8 -I{} curl "${H[@]}" -o /dev/null -X DELETE "http://127.0.0.1:8774/v2.1/flavors/{}"
}
trap cleanup EXIT

echo "setup: $N images (no data) and $M flavors"
seq 1 "$N" | xargs -P8 -I{} curl "${H[@]}" -o /dev/null -X POST http://127.0.0.1:9292/v2/images \
  -d "{\"name\":\"$RUN-img-{}\",\"disk_format\":\"qcow2\",\"container_format\":\"bare\",\"bench_run\":\"$RUN\",\"os_distro\":\"windows\"}"
seq 1 "$M" | xargs -P8 -I{} curl "${H[@]}" -o /dev/null -X POST http://127.0.0.1:8774/v2.1/flavors \
  -d "{\"flavor\":{\"name\":\"$RUN-flv-{}\",\"ram\":64,\"vcpus\":1,\"disk\":1}}"
FLAVORS=$(seq -f "$RUN-flv-%g" 1 "$M")
IMAGES=$(curl "${H[@]}" "http://127.0.0.1:9292/v2/images?limit=1000&bench_run=$RUN" | jq -r '.images[].id')

t=$(now); $V image set --select bench_run=$RUN --tpm-version 2.0 --tpm-model tpm-crb -f value -c action > /dev/null; vi=$(since "$t")
t=$(now); $V flavor set $FLAVORS --tpm-version 2.0 --tpm-model tpm-crb -f value -c action > /dev/null; vf=$(since "$t")
t=$(now); $V image set --select bench_run=$RUN --tpm-version 2.0 --tpm-model tpm-crb -f value -c action > /dev/null; vr=$(since "$t")
echo "vtpmctl: $N images ${vi}s, $M flavors ${vf}s, rerun on $N images (0 writes) ${vr}s"

# back to a clean slate, then the openstack client loop
$V image unset --select bench_run=$RUN -f value -c action > /dev/null
$V flavor unset $FLAVORS -f value -c action > /dev/null
t=$(now); for id in $IMAGES; do openstack image set --property hw_tpm_version=2.0 --property hw_tpm_model=tpm-crb "$id"; done; oi=$(since "$t")
t=$(now); for f in $FLAVORS; do openstack flavor set --property hw:tpm_version=2.0 --property hw:tpm_model=tpm-crb "$f"; done; of=$(since "$t")
echo "openstack loop: $N images ${oi}s, $M flavors ${of}s"
awk -v vi="$vi" -v vf="$vf" -v oi="$oi" -v of="$of" 'BEGIN{printf "ratio (openstack/vtpmctl): images %.0fx, flavors %.0fx\n", oi/vi, of/vf}'
