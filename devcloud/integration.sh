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
#
# devcloud/matrix says where each test runs: on every release, or only on
# the newest cloud of the run (release-independent tests), which is the
# newest release named, or the newest that came up when that one cannot be
# built today. The run ends with the matrix as it ran (test x release).
#
# The next release's cloud comes up while this one's tests run (each cloud
# has its own chroot, network namespace, lock, libvirtd and Ceph; zed's are
# the host's, under /var/tmp/vtpmctl-devcloud): DEVCLOUD_OVERLAP=0 brings
# each up only once the one before is done.
set -uo pipefail
cd "$(dirname "$0")/.."
# Every cloud the suite starts has Cinder on a single-node Ceph (devcloud/cinder.sh):
# the boot-from-volume tests need it on every release.
export DEVCLOUD_CINDER=1
REPO=$PWD
strict=0
[ "${1:-}" = --strict ] && { strict=1; shift; }
[ $# -gt 0 ] || set -- zed
releases=("$@")
T_START=$(date +%s)
TAGS=${TAGS:-libvirt_dlopen}
OVERLAP=${DEVCLOUD_OVERLAP:-1}
BIN=$PWD/bin/integration
mkdir -p "$BIN"
# this run's own test binaries: another run may be using the last ones
EXE=$(mktemp -d "$BIN/exe.XXXXXX")
# The test binary runs in a process group of its own (setsid): an
# interrupted run stops it too, and nothing else. So does a cloud's
# bring-up running beside it.
tests_pid=""
declare -A up_pid=() up_rc=() up_t0=() up_s=()
trap 'rm -rf "$EXE"' EXIT
lm_rel=""
trap '[ -n "$tests_pid" ] && kill -TERM -- "-$tests_pid" 2> /dev/null; for p in "${up_pid[@]}"; do kill -TERM -- "-$p" 2> /dev/null; done; [ -n "$lm_rel" ] && bash devcloud/second-compute.sh "$lm_rel" down; exit 130' INT TERM

# A cloud's bring-up, in the background; finish_up waits for it (starting
# it first if nothing did) and keeps its exit status in up_rc.
# up_s: how long it took; up_end: when it ended (written by the bring-up
# itself: finish_up may wait for it long after).
start_up() {
  local rel=$1 cmd
  up_t0[$rel]=$(date +%s)
  if [ "$rel" = zed ]; then cmd="bash devcloud/up.sh"; else cmd="bash devcloud/release.sh $rel up"; fi
  rm -f "$EXE/up-end.$rel"
  # its output goes through as it comes, and to up.REL.log, whose last
  # line names why in the run's summary when the cloud did not come up
  setsid bash -c "set -o pipefail; $cmd 2>&1 | tee $EXE/up.$rel.log; rc=\$?; date +%s > $EXE/up-end.$rel; exit \$rc" &
  up_pid[$rel]=$!
}
# why_not_up REL: the last line its bring-up printed, for the summary a CI
# log ends with: a failure's own line (a timeout, a failed apt-get) or,
# when a command failed silently into its log (nova-manage), the step it
# was in.
why_not_up() { tail -n 1 "$EXE/up.$1.log" 2>/dev/null | sed 's/^\[[^]]*\] *//; s/^\[devcloud *[0-9.]*s\] *//'; }
declare -A up_end=()
finish_up() {
  local rel=$1
  [ -n "${up_rc[$rel]:-}" ] && return
  [ -n "${up_pid[$rel]:-}" ] || start_up "$rel"
  wait "${up_pid[$rel]}"; up_rc[$rel]=$?
  up_end[$rel]=$(cat "$EXE/up-end.$rel" 2>/dev/null || date +%s)
  up_s[$rel]=$(( ${up_end[$rel]} - ${up_t0[$rel]} ))
  unset "up_pid[$rel]"
}

# The matrix: the release-independent tests, and the newest release named.
MATRIX=devcloud/matrix
newest_only=$(sed 's/#.*//' "$MATRIX" | awk '$2 == "newest" { print $1 }' | paste -sd'|')
rank() { if [ "$1" = zed ]; then echo 0; else echo "${1/./}"; fi; }   # 2026.1 → 20261
newest=""
for r in "${releases[@]}"; do { [ -z "$newest" ] || [ "$(rank "$r")" -gt "$(rank "$newest")" ]; } && newest=$r; done
newest_where=""   # where the newest-only tests ran

declare -A result=()
rc=0
# Each release's cloud is stopped once its tests are done (its data kept:
# the next run starts it warm), so the next release has the memory and the
# run leaves nothing behind; it stops in the background while the next
# release's tests run, and the run waits for every stop before it ends.
# KEEP_CLOUDS=1 keeps them running, for a run after this one; the end then
# names what is still up and how to stop it.
kept=()
stopping=()
stop_cloud() {
  if [ "${KEEP_CLOUDS:-0}" = 1 ]; then kept+=("$1"); return; fi
  { if [ "$1" = zed ]; then bash devcloud/down.sh > /dev/null 2>&1; else bash devcloud/release.sh "$1" down > /dev/null 2>&1; fi ||
      echo "integration $1: its cloud did not stop cleanly (make devcloud-down RELEASE=$1)"; } &
  stopping+=($!)
}

# The first cloud comes up while the test binaries build.
[ "$OVERLAP" = 1 ] && start_up "${releases[0]}"
build_failed() { echo "integration: the test binaries did not build"; [ -n "${up_pid[${releases[0]}]:-}" ] && { finish_up "${releases[0]}"; stop_cloud "${releases[0]}"; }; exit 1; }
pkgs=$(grep -l '^//go:build integration' $(git ls-files '*_test.go') | xargs -n1 dirname | sort -u)
for p in $pkgs; do
  # the test binaries are built here, with the module cache and network
  go test -c -tags "$TAGS integration" -o "$EXE/$(echo "$p" | tr / _).test" "./$p" || build_failed
done
# INTEGRATION_RUN narrows the run while working on one test (a regexp of
# test names, as go test -run takes).
pattern=${INTEGRATION_RUN:-^TestIntegration}
testable=""
for p in $pkgs; do
  list=$("$EXE/$(echo "$p" | tr / _).test" -test.list "$pattern") || build_failed
  case $list in *TestIntegration*) testable="$testable $p" ;; esac
done

# run_pass REL ARGS…: the test binaries against REL's cloud (as run=(…)
# says) with the go test ARGS, into REL's log.
run_pass() {
  local rel=$1 p mod; shift
  for p in $testable; do
    mod=$(go list "./$p")   # here: after the cd it would name cmd/vtpmctl/cmd/vtpmctl
    ( cd "$p" && exec setsid "${run[@]}" go tool test2json -t -p "$mod" "$EXE/$(echo "$p" | tr / _).test" \
        -test.v=test2json -test.count=1 "$@" ) >> "$BIN/$rel.json" &
    tests_pid=$!
    wait $tests_pid
    tests_pid=""
  done
}
# selected PATTERN: those of the tests PATTERN names that the run's
# pattern selects (INTEGRATION_RUN narrows it), as one alternation. (The
# list is read whole: grep -q would stop reading at the match and, under
# pipefail, the binary's SIGPIPE would silently skip the pass.)
selected() {
  local p all=""
  for p in $testable; do all+="$("$EXE/$(echo "$p" | tr / _).test" -test.list "$pattern")"$'\n'; done
  grep -E "^($1)\$" <<< "$all" | paste -sd'|' || true
}
# run_newest_only REL: the release-independent tests, in a pass of their own
# on REL's cloud (when the newest release named did not come up).
run_newest_only() {
  local sel
  sel=$(selected "$newest_only")
  [ -n "$sel" ] && run_pass "$1" -test.run "^($sel)\$" -test.timeout 20m
  newest_where=$1
}

echo "== integration matrix ($MATRIX): every release runs all tests but these newest-only ones, which run on $newest: ${newest_only//|/ }"
for i in "${!releases[@]}"; do
  rel=${releases[$i]}
  next=${releases[$((i+1))]:-}
  t0=$(date +%s)
  finish_up "$rel"; up=${up_rc[$rel]}
  if [ "$rel" = zed ]; then
    [ $up = 0 ] || { result[$rel]="cloud did not come up; the last line of its bring-up: $(why_not_up "$rel")"; rc=1; stop_cloud "$rel"; continue; }
    run=(env DEVCLOUD_RELEASE=zed)
  else
    if [ $up = 3 ]; then
      result[$rel]="not tested: its chroot cannot be built from Debian's archive today (see /var/tmp/vtpmctl-releases/$rel/*.log)"
      case $rel in 2026.*) [ $strict = 1 ] && rc=1 ;; *) rc=1 ;; esac
      echo "integration $rel: ${result[$rel]}"
      continue
    fi
    [ $up = 0 ] || { result[$rel]="cloud did not come up (exit $up); the last line of its bring-up: $(why_not_up "$rel")"; rc=1; stop_cloud "$rel"; continue; }
    root=$(bash devcloud/release.sh "$rel" root)
    run=(bash "$REPO/devcloud/release.sh" "$rel" in env DEVCLOUD_RELEASE="$rel" DEVCLOUD_ROOT="$root" DEVCLOUD_DIR="$root/var/tmp/vtpmctl-devcloud")
  fi
  # the next cloud comes up beside this one's tests
  [ "$OVERLAP" = 1 ] && [ -n "$next" ] && [ -z "${up_rc[$next]:-}" ] && start_up "$next"
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
  bpass=""
  case $rel in
    2025.1) bpass='TestIntegrationColdMigration' ;;
    2026.1) bpass='TestIntegrationLiveMigration|TestIntegrationAnsibleHostAudit' ;;
    2026.2) bpass='TestIntegrationLiveMigration|TestIntegrationColdMigration' ;;
  esac
  # the release-independent tests run on the newest cloud only
  notnow=$bpass
  [ "$rel" = "$newest" ] && newest_where=$rel || notnow=${notnow:+$notnow|}$newest_only
  skip=()
  [ -n "$notnow" ] && skip=(-test.skip "^($notnow)\$")
  run_pass "$rel" -test.run "$pattern" "${skip[@]}" -test.timeout 40m
  [ -n "$bpass" ] && bpass=$(selected "$bpass")
  if [ -n "$bpass" ]; then
    b0=$(date +%s)
    lm_rel=$rel
    if bash devcloud/second-compute.sh "$rel" up; then
      run_pass "$rel" -test.run "^($bpass)\$" -test.timeout 15m
    else
      echo "integration $rel: the second compute did not come up (devcloud/second-compute.sh)"; rc=1
    fi
    # host B goes before its cloud does (release.sh does not know it)
    bash devcloud/second-compute.sh "$rel" down
    lm_rel=""
    echo "integration $rel: the pass with host B ($bpass: up, tests, down) took $(( $(date +%s) - b0 ))s"
  fi
  # When the newest release is the next one and it did not come up, this
  # cloud, still up, is the newest that did: the newest-only tests run here.
  if [ -n "$newest_only" ] && [ -z "$newest_where" ] && [ "$next" = "$newest" ] && [ "$OVERLAP" = 1 ]; then
    finish_up "$next"
    if [ "${up_rc[$next]}" != 0 ]; then
      echo "integration: $newest did not come up; the newest-only tests run on $rel"
      run_newest_only "$rel"
    fi
  fi
  echo "== integration on $rel"
  go run ./tools/testsummary < "$log" | tee "$BIN/$rel.out"; ok=${PIPESTATUS[0]}
  [ "$ok" = 0 ] || rc=1
    # "in": from the end of the release before (or of the build) to this
  # one's end; its bring-up may have begun ahead, beside the build or the
  # release before
  early=$(( (t0 < ${up_end[$rel]} ? t0 : ${up_end[$rel]}) - ${up_t0[$rel]} )); [ $early -gt 0 ] || early=0
  result[$rel]="$(tail -1 "$BIN/$rel.out") in $(( $(date +%s) - t0 ))s (bring-up ${up_s[$rel]}s, ${early}s of it ahead of its turn)"
  stop_cloud "$rel"
done

# The newest-only tests never vanish: when no cloud ran them (the newest
# release and those after the last cloud up did not come up), the newest
# cloud that came up is started again (warm) for them.
if [ -n "$newest_only" ] && [ -z "$newest_where" ]; then
  fallback=""
  for r in "${releases[@]}"; do
    [ "${up_rc[$r]:-1}" = 0 ] && { [ -z "$fallback" ] || [ "$(rank "$r")" -gt "$(rank "$fallback")" ]; } && fallback=$r
  done
  if [ -n "$fallback" ]; then
    echo "integration: $newest did not come up; the newest-only tests run on $fallback, started again for them"
    for p in "${stopping[@]}"; do wait "$p"; done; stopping=()
    unset "up_rc[$fallback]"; finish_up "$fallback"
    if [ "${up_rc[$fallback]}" = 0 ]; then
      if [ "$fallback" = zed ]; then run=(env DEVCLOUD_RELEASE=zed); else
        root=$(bash devcloud/release.sh "$fallback" root)
        run=(bash "$REPO/devcloud/release.sh" "$fallback" in env DEVCLOUD_RELEASE="$fallback" DEVCLOUD_ROOT="$root" DEVCLOUD_DIR="$root/var/tmp/vtpmctl-devcloud")
      fi
      before=$(wc -l < "$BIN/$fallback.json")
      run_newest_only "$fallback"
      echo "== integration on $fallback (the newest-only tests)"
      tail -n +"$((before + 1))" "$BIN/$fallback.json" | go run ./tools/testsummary | tee -a "$BIN/$fallback.out"; [ "${PIPESTATUS[1]}" = 0 ] || rc=1
    else
      echo "integration: $fallback did not come up again: the newest-only tests did not run"; rc=1
    fi
    stop_cloud "$fallback"
  else
    echo "integration: no cloud came up: the newest-only tests did not run"
  fi
fi
for p in "${stopping[@]}"; do wait "$p"; done

# The matrix as it ran: per test and release, ran (pass), FAIL, skip (the
# test's own Only/Since: not this release), - (not sent: newest-only).
echo "== integration matrix: test x release (ran, FAIL, skip = the test's own Only/Since, - = not sent here)"
[ -n "$newest_where" ] && [ "$newest_where" != "$newest" ] && echo "  the newest-only tests ran on $newest_where: $newest did not come up"
{
  printf '%-42s' TEST; for rel in "${releases[@]}"; do printf ' %-7s' "$rel"; done; echo
  for t in $(sed 's/#.*//' "$MATRIX" | awk 'NF == 2 { print $1 }'); do
    printf '%-42s' "$t"
    for rel in "${releases[@]}"; do
      a=""
      [ "${up_rc[$rel]:-}" = 0 ] &&
        a=$(grep -o "\"Action\":\"[a-z]*\",\"Package\":\"[^\"]*\",\"Test\":\"$t\"" "$BIN/$rel.json" | sed -n 's/^"Action":"\(pass\|fail\|skip\)".*/\1/p' | tail -1)
      case $a in pass) a=ran ;; fail) a=FAIL ;; skip) ;; *) [ "${up_rc[$rel]:-}" = 3 ] && a=n/a || a=- ;; esac
      printf ' %-7s' "$a"
    done
    echo
  done
} | sed 's/^/  /'
echo "== integration per release"
for rel in "${releases[@]}"; do echo "  $rel: ${result[$rel]:-}"; done
echo "  total: $(( $(date +%s) - T_START ))s (the test binaries' build and every release; bring-ups overlapped: $([ "$OVERLAP" = 1 ] && echo yes || echo no))"
if [ ${#kept[@]} -gt 0 ]; then
  echo "== clouds still running (KEEP_CLOUDS=1): ${kept[*]}; stop them all with: make devcloud-down-all"
else
  echo "== clouds stopped (data kept; KEEP_CLOUDS=1 keeps them running)"
fi
exit $rc
