#!/bin/bash
# Runs the integration tests against each release's local cloud in turn,
# bringing each up first:
#   devcloud/integration.sh [--strict] RELEASE…      (zed 2025.1 2026.1 2026.2)
# zed is the native cloud; a newer release runs in its chroot and network
# namespace, and so does its test binary: it reaches the cloud through the
# clouds.yaml the cloud wrote, at 127.0.0.1 inside the namespace, as a user
# reaches a remote cloud. 2026.1 and 2026.2 come from Debian's moving suites:
# when their chroot cannot be built because the archive is broken that day,
# that is said in one line and, without --strict, the run goes on.
set -uo pipefail
cd "$(dirname "$0")/.."
# Every cloud the suite starts has Cinder on a single-node Ceph (devcloud/cinder.sh):
# the boot-from-volume tests need it on every release.
export DEVCLOUD_CINDER=1
REPO=$PWD
strict=0
[ "${1:-}" = --strict ] && { strict=1; shift; }
[ $# -gt 0 ] || set -- zed
TAGS=${TAGS:-libvirt_dlopen}
BIN=$PWD/bin/integration
mkdir -p "$BIN"
# this run's own test binaries: another run may be using the last ones
EXE=$(mktemp -d "$BIN/exe.XXXXXX")
# The test binary runs in a process group of its own (setsid): an
# interrupted run stops it too, and nothing else.
tests_pid=""
trap 'rm -rf "$EXE"' EXIT
lm_rel=""
trap '[ -n "$tests_pid" ] && kill -TERM -- "-$tests_pid" 2> /dev/null; [ -n "$lm_rel" ] && bash devcloud/second-compute.sh "$lm_rel" down; exit 130' INT TERM
pkgs=$(grep -l '^//go:build integration' $(git ls-files '*_test.go') | xargs -n1 dirname | sort -u)
for p in $pkgs; do
  # the test binaries are built here, with the module cache and network
  go test -c -tags "$TAGS integration" -o "$EXE/$(echo "$p" | tr / _).test" "./$p" || exit 1
done
# INTEGRATION_RUN narrows the run while working on one test (a regexp of
# test names, as go test -run takes).
pattern=${INTEGRATION_RUN:-^TestIntegration}
testable=""
for p in $pkgs; do
  list=$("$EXE/$(echo "$p" | tr / _).test" -test.list "$pattern") || exit 1
  case $list in *TestIntegration*) testable="$testable $p" ;; esac
done

declare -A result
rc=0
# Each release's cloud is stopped once its tests are done (its data kept:
# the next run starts it warm), so the next release has the memory and the
# run leaves nothing behind. KEEP_CLOUDS=1 keeps them running, for a run
# after this one; the end then names what is still up and how to stop it.
kept=()
stop_cloud() {
  if [ "${KEEP_CLOUDS:-0}" = 1 ]; then kept+=("$1"); return; fi
  if [ "$1" = zed ]; then bash devcloud/down.sh > /dev/null 2>&1; else bash devcloud/release.sh "$1" down > /dev/null 2>&1; fi ||
    echo "integration $1: its cloud did not stop cleanly (make devcloud-down RELEASE=$1)"
}
for rel in "$@"; do
  t0=$(date +%s)
  if [ "$rel" = zed ]; then
    bash devcloud/up.sh || { result[$rel]="cloud did not come up"; rc=1; stop_cloud "$rel"; continue; }
    run=(env DEVCLOUD_RELEASE=zed)
  else
    bash devcloud/release.sh "$rel" up; up=$?
    if [ $up = 3 ]; then
      result[$rel]="not tested: its chroot cannot be built from Debian's archive today (see /var/tmp/vtpmctl-releases/$rel/*.log)"
      case $rel in 2026.*) [ $strict = 1 ] && rc=1 ;; *) rc=1 ;; esac
      echo "integration $rel: ${result[$rel]}"
      continue
    fi
    [ $up = 0 ] || { result[$rel]="cloud did not come up (exit $up)"; rc=1; stop_cloud "$rel"; continue; }
    root=$(bash devcloud/release.sh "$rel" root)
    run=(bash "$REPO/devcloud/release.sh" "$rel" in env DEVCLOUD_RELEASE="$rel" DEVCLOUD_ROOT="$root" DEVCLOUD_DIR="$root/var/tmp/vtpmctl-devcloud")
  fi
  # what Ceph + Cinder cost on this release (the volume tests' backend)
  if [ "$rel" = zed ]; then bash devcloud/cinder.sh status; else bash devcloud/cinder.sh status "$rel"; fi 2>&1 |
    sed -n "s/^PSS of Ceph + Cinder/integration $rel: PSS of Ceph + Cinder/p"
  log=$BIN/$rel.json
  : > "$log"
  # Live and cold migration need a second libvirt compute: they run in a
  # pass of their own (one after the other: the live migration test takes
  # a trait away from host B for a while) so no other test sees host B.
  # Live migration from 2026.1 (host mode); cold migration and resize
  # revert on 2025.1 (bug 2125030) and 2026.2 (2026.1 runs the same code
  # for them; its minutes go elsewhere).
  bpass="" skip=()
  case $rel in
    2025.1) bpass='TestIntegrationColdMigration' ;;
    2026.1) bpass='TestIntegrationLiveMigration|TestIntegrationAnsibleHostAudit' ;;
    2026.2) bpass='TestIntegrationLiveMigration|TestIntegrationColdMigration' ;;
  esac
  [ -n "$bpass" ] && skip=(-test.skip "^($bpass)\$")
  for p in $testable; do
    mod=$(go list "./$p")
    ( cd "$p" && exec setsid "${run[@]}" go tool test2json -t -p "$mod" "$EXE/$(echo "$p" | tr / _).test" \
        -test.v=test2json -test.count=1 -test.run "$pattern" "${skip[@]}" -test.timeout 40m ) >> "$log" &
    tests_pid=$!
    wait $tests_pid
    tests_pid=""
  done
  # (the list is read whole: grep -q would stop reading at the match and,
  # under pipefail, the binary's SIGPIPE would silently skip the pass)
  # only those the run's pattern selects (INTEGRATION_RUN narrows it)
  [ -n "$bpass" ] && bpass=$(grep -E "^($bpass)\$" <<< "$("$EXE/cmd_vtpmctl.test" -test.list "$pattern")" | paste -sd'|' || true)
  if [ -n "$bpass" ]; then
    b0=$(date +%s)
    lm_rel=$rel
    if bash devcloud/second-compute.sh "$rel" up; then
      mod=$(go list ./cmd/vtpmctl)   # here: after the cd it would name cmd/vtpmctl/cmd/vtpmctl
      ( cd cmd/vtpmctl && exec setsid "${run[@]}" go tool test2json -t -p "$mod" "$EXE/cmd_vtpmctl.test" \
          -test.v=test2json -test.count=1 -test.run "^($bpass)\$" -test.timeout 15m ) >> "$log" &
      tests_pid=$!
      wait $tests_pid
      tests_pid=""
    else
      echo "integration $rel: the second compute did not come up (devcloud/second-compute.sh)"; rc=1
    fi
    # host B goes before its cloud does (release.sh does not know it)
    bash devcloud/second-compute.sh "$rel" down
    lm_rel=""
    echo "integration $rel: the pass with host B ($bpass: up, tests, down) took $(( $(date +%s) - b0 ))s"
  fi
  echo "== integration on $rel"
  go run ./tools/testsummary < "$log" | tee "$BIN/$rel.out"; ok=${PIPESTATUS[0]}
  [ "$ok" = 0 ] || rc=1
  result[$rel]="$(tail -1 "$BIN/$rel.out") in $(( $(date +%s) - t0 ))s"
  stop_cloud "$rel"
done
echo "== integration per release"
for rel in "$@"; do echo "  $rel: ${result[$rel]}"; done
if [ ${#kept[@]} -gt 0 ]; then
  echo "== clouds still running (KEEP_CLOUDS=1): ${kept[*]}; stop them all with: make devcloud-down-all"
else
  echo "== clouds stopped (data kept; KEEP_CLOUDS=1 keeps them running)"
fi
exit $rc
