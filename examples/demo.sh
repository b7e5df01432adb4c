#!/bin/bash
# The main job, end to end, on the local cloud (run by `make demo`, which
# brings the cloud up and builds bin/vtpmctl first). Each step says what it
# does and what to notice. Safe to rerun: it cleans up what it creates.
set -euo pipefail
cd "$(dirname "$0")/.."
DEVCLOUD_DIR=${DEVCLOUD_DIR:-/var/tmp/vtpmctl-devcloud}
export OS_CLIENT_CONFIG_FILE=$DEVCLOUD_DIR/clouds.yaml
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH   # Debian's openstack client, not a shim
V=./bin/vtpmctl
LIBVIRT_URI="qemu+unix:///system?socket=$DEVCLOUD_DIR/run/libvirt/libvirt-sock"

say()  { printf '\n\033[1m== %s\033[0m\n' "$*"; }
note() { printf '   -> %s\n' "$*"; }
run()  { printf '$ %s\n' "$*"; "$@"; }
os_admin() { openstack --os-cloud devcloud-admin "$@"; }
os_demo()  { openstack --os-cloud devcloud-demo --os-compute-api-version 2.37 "$@"; }

cleanup() {
  os_demo server delete --wait demo-win11 > /dev/null 2>&1 || true
  os_demo image delete demo-win11-img demo-vtpm-img > /dev/null 2>&1 || true
  for f in demo.vtpm demo.tpm12 demo.bad; do os_admin flavor delete $f > /dev/null 2>&1 || true; done
}
trap cleanup EXIT
cleanup
mkdir -p /tmp/vtpmctl-reports

say "1. Offline: would Nova give this pair a vTPM? (no cloud needed)"
note "image asks for TPM 2.0, flavor asks for the CRB model: Nova merges the keys one by one"
run $V check --image-property hw_tpm_version=2.0 --flavor-spec hw:tpm_model=tpm-crb --nova-release zed
note "notice: on 2024.2 and later the host also needs the model trait:"
run $V check --image-property hw_tpm_version=2.0 --flavor-spec hw:tpm_model=tpm-crb --nova-release 2024.2 -f value -c required_traits

say "2. Offline: a pair Nova refuses — and when the user would find out"
set +e
run $V check --flavor-spec hw:tpm_version=1.2 --flavor-spec hw:tpm_model=tpm-crb --nova-release zed -c result -c error -c error_when
note "exit status $? (1 = Nova would refuse); the API would answer 202 and the server end in ERROR"
set -e

say "3. A project member tags her Windows image — no operator needed"
qemu-img create -f qcow2 /tmp/vtpmctl-demo.qcow2 64M > /dev/null
os_demo image create --disk-format qcow2 --container-format bare --file /tmp/vtpmctl-demo.qcow2 \
  --property os_distro=windows --property hw_disk_bus=ide demo-win11-img -f value -c id > /dev/null
run $V --os-cloud devcloud-demo image set demo-win11-img --windows
note "the Windows-ready profile: TPM 2.0 + CRB, UEFI, q35, Secure Boot; ide became sata (q35 has no IDE bus)"
run $V --os-cloud devcloud-demo image set demo-win11-img --windows -f value -c key -c action
note "the same command again: every key unchanged, zero writes — scripts can rerun it"

say "3b. The operator publishes vTPM flavors from a script"
run $V --os-cloud devcloud-admin flavor create demo.vtpm --vcpus 1 --ram 64 --disk 1 --tpm-version 2.0 --tpm-model tpm-crb
run $V --os-cloud devcloud-admin flavor create demo.tpm12 --vcpus 1 --ram 64 --disk 1 --tpm-version 1.2
note "notice the warning: that flavor and the Windows image would put a server in ERROR, in Nova's own words"
set +e
run $V --os-cloud devcloud-admin flavor create demo.bad --vcpus 1 --ram 64 --disk 1 --tpm-version 2.0 --secret-security host
note "exit status $?: this cloud runs Zed; hw:tpm_secret_security needs Nova 2026.1 — refused before anything was written"
set -e

say "4. vtpmctl reads both from the cloud and detects the Nova release"
run $V --os-cloud devcloud-demo check --image demo-win11-img --flavor demo.vtpm
note "notice nova_release: detected from the compute API's maximum microversion"

say "5. The wrong flavor for this image: Nova's own conflict message, before anyone boots"
set +e
run $V --os-cloud devcloud-demo check --image demo-win11-img --flavor demo.tpm12 -f value -c error
note "exit status $?"
set -e

say "6. Boot a vTPM guest for real: Nova agrees with the prediction"
note "this devcloud runs QEMU without KVM (TCG), which cannot offer the Hyper-V enlightenments"
note "os_type=windows turns on, so the guest booted here is a copy tagged for the vTPM only"
os_demo image create --disk-format qcow2 --container-format bare --file /tmp/vtpmctl-demo.qcow2 demo-vtpm-img -f value -c id > /dev/null
run $V --os-cloud devcloud-demo image set demo-vtpm-img --tpm-version 2.0 --tpm-model tpm-crb -f value -c key -c action
run $V --os-cloud devcloud-demo check --image demo-vtpm-img --flavor demo.vtpm -f value -c result -c version -c model
os_demo server create --flavor demo.vtpm --image demo-vtpm-img --nic none --availability-zone libvirt --wait demo-win11 -f value -c status
SID=$(os_demo server show demo-win11 -f value -c id)
printf '$ virsh dumpxml %s   (the <tpm> part)\n' "$SID"
virsh -c "$LIBVIRT_URI" dumpxml "$SID" | sed -n '/<tpm /,/<\/tpm>/p'
note "the domain has <tpm model='tpm-crb'> with an emulator backend version 2.0 and an encryption secret"
run openstack --os-cloud devcloud-demo secret list --name "vTPM secret for instance $SID" -c Name -c 'Secret type' -f table
note "its passphrase is a Barbican secret owned by the user who booted it (demo)"

say "7. Compliance: audit this compute host (no cloud credentials needed)"
run $V host check --nova-conf "$DEVCLOUD_DIR/etc/nova/nova-cpu.conf" --qemu-conf "$DEVCLOUD_DIR/etc/libvirt/qemu.conf" \
  --swtpm-state-dir "$DEVCLOUD_DIR/data/libvirt/lib/swtpm" --junit /tmp/vtpmctl-host.xml -f value -c id -c status
note "the running vTPM guest is found, its state dir and encryption secret checked; KEEP-TPM-STATE warns:"
note "Zed wipes vTPM state on stop/start (bug 2118888) — escrow BitLocker keys on such clouds"
$V host check --nova-conf "$DEVCLOUD_DIR/etc/nova/nova-cpu.conf" --qemu-conf "$DEVCLOUD_DIR/etc/libvirt/qemu.conf" \
  --swtpm-state-dir "$DEVCLOUD_DIR/data/libvirt/lib/swtpm" -f json > /tmp/vtpmctl-reports/devcloud.json || true

say "8. The fleet: every compute's Placement traits against what the scheduler needs"
set +e
run $V --os-cloud devcloud-admin hosts audit --host-reports /tmp/vtpmctl-reports
note "exit status $?: the fake-driver compute is not a vTPM host (a warning); the libvirt one matches its config"
run $V --os-cloud devcloud-admin hosts audit --nova-release 2024.2 -f value -c host -c tpm_2_0
note "after an upgrade of the scheduler to 2024.2 these Zed computes would take no vTPM guest: model traits missing"
set -e

say "9. The Barbican secret behind every vTPM guest"
set +e
run $V --os-cloud devcloud-admin secrets audit --all-projects --include-orphans -c result -c server_id -c name -c mode -c cannot
note "exit status $?: the demo guest's secret exists once, in its project, owned by demo, never expiring"
set -e

say "10. Before upgrading the scheduler to 2024.2"
set +e
run $V --os-cloud devcloud-admin upgrade check --to 2024.2
note "exit status $?: Zed computes report no TPM model trait, so the running vTPM guest would be stranded"
set -e

say "11. One page for the reviewer"
run $V --os-cloud devcloud-admin report -o "$PWD/vtpm-report.html" --host-reports /tmp/vtpmctl-reports --upgrade-to 2024.2
note "open vtpm-report.html: summary tiles, charts of hosts and guests, every finding with its remedy (renders offline)"

say "Done. Cleaning up the demo objects."
