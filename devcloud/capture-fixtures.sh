#!/bin/bash
# Captures the JSON fixtures of internal/fakecloud/testdata from the local
# cloud (make devcloud-up first): real answers of Zed's Keystone, Glance,
# Nova, Placement and Barbican to the requests vtpmctl makes, with the
# endpoint written as {{URL}} so the fake serves them from its own address.
# It creates a few objects (a vTPM image and flavor, a vTPM guest booted on
# the libvirt compute, whose secret Nova stores in Barbican) and deletes
# them again.
set -euo pipefail
cd "$(dirname "$0")/.."
export OS_CLIENT_CONFIG_FILE=${DEVCLOUD_DIR:-/var/tmp/vtpmctl-devcloud}/clouds.yaml
out=internal/fakecloud/testdata
os() { openstack --os-cloud "$1" "${@:2}"; }
tok_admin=$(os devcloud-admin token issue -f value -c id | tail -1)
tok_demo=$(os devcloud-demo token issue -f value -c id | tail -1)
demo_project=$(os devcloud-admin project show demo -f value -c id | tail -1)
img="" plain="" srv="" tiny=""
cleanup() {
  [ -n "$srv" ] && os devcloud-demo server delete --wait "$srv" || true
  os devcloud-admin flavor delete fx-vtpm fx-plain 2> /dev/null || true
  for i in $img $plain; do os devcloud-admin image delete "$i" || true; done
  rm -f "$tiny"
}
trap cleanup EXIT
tiny=$(mktemp --suffix=.qcow2)
qemu-img create -q -f qcow2 "$tiny" 64M
img=$(os devcloud-admin image create --public --disk-format qcow2 --file "$tiny" --property hw_tpm_version=2.0 --property hw_tpm_model=tpm-crb --property os_distro=windows fx-win11 -f value -c id | tail -1)
plain=$(os devcloud-admin image create --public fx-plain -f value -c id | tail -1)
os devcloud-admin flavor create --vcpus 1 --ram 64 --disk 1 --property hw:tpm_version=2.0 --property hw:tpm_model=tpm-crb fx-vtpm > /dev/null
os devcloud-admin flavor create --vcpus 1 --ram 512 --disk 1 fx-plain > /dev/null
srv=$(os devcloud-demo --os-compute-api-version 2.47 server create --image "$img" --flavor fx-vtpm --availability-zone libvirt --nic none --wait fx-win11-server -f value -c id | tail -1)
# Nova itself created the guest's vTPM secret, as demo, in Barbican.
sec_id=$(os devcloud-demo secret list --name "vTPM secret for instance $srv" -f value -c "Secret href" | head -1)
sec_id=${sec_id##*/}
get() { # NAME TOKEN URL [HEADER]
  local extra=()
  [ -n "${4:-}" ] && extra=(-H "$4")
  curl -sf -H "X-Auth-Token: $2" -H "Accept: application/json" "${extra[@]}" "$3" |
    python3 -c 'import json,sys,re; d=json.load(sys.stdin); s=json.dumps(d,indent=1,sort_keys=True); print(re.sub(r"http://127\.0\.0\.1:(5000|8774|9292|9311|8778)", lambda m: "{{URL}}/"+{"5000":"identity","8774":"compute","9292":"image","9311":"key-manager","8778":"placement"}[m.group(1)], s))' > "$out/$1.json"
  echo "$out/$1.json"
}
get compute-version "$tok_admin" http://127.0.0.1:8774/v2.1/
get servers-detail "$tok_admin" "http://127.0.0.1:8774/v2.1/servers/detail?all_tenants=True&limit=1000" "X-OpenStack-Nova-API-Version: 2.47"
get flavors-detail "$tok_admin" "http://127.0.0.1:8774/v2.1/flavors/detail?is_public=None&limit=1000" "X-OpenStack-Nova-API-Version: 2.61"
get hypervisors "$tok_admin" "http://127.0.0.1:8774/v2.1/os-hypervisors/detail" "X-OpenStack-Nova-API-Version: 2.53"
get images "$tok_admin" "http://127.0.0.1:9292/v2/images?limit=1000"
get secrets "$tok_demo" "http://127.0.0.1:9311/v1/secrets?name=vTPM%20secret%20for%20instance%20%25&limit=100"
get secret-acl "$tok_demo" "http://127.0.0.1:9311/v1/secrets/$sec_id/acl"
get projects "$tok_admin" "http://127.0.0.1:5000/v3/projects"
get role-assignments "$tok_admin" "http://127.0.0.1:5000/v3/role_assignments?scope.project.id=$demo_project&effective=true"
demo_user=$(os devcloud-admin user show demo -f value -c id | tail -1)
get user "$tok_admin" "http://127.0.0.1:5000/v3/users/$demo_user"
for t in COMPUTE_SECURITY_TPM_2_0 COMPUTE_SECURITY_TPM_1_2 COMPUTE_SECURITY_UEFI_SECURE_BOOT; do
  get "rp-$t" "$tok_admin" "http://127.0.0.1:8778/resource_providers?required=$t" "OpenStack-API-Version: placement 1.18"
done
