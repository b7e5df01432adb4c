#!/bin/bash
# Runs every fuzz target in the repository for FUZZTIME each.
#
# Targets are found in the source (`func FuzzX(f *testing.F)` in a _test.go
# file), not with `go test -list`, which links every package's test binary
# only to list it (about a minute of make test).
#
# A target fails the run when it finds a crasher (Go writes it under
# testdata/fuzz/<target>/) or when its seeds fail. One failure is not the
# target's: Go's fuzzing coordinator applies -fuzztime as a context deadline
# and, if it is preempted between the parent context's cancel and the child's,
# reports its own deadline ("context deadline exceeded") as the target's
# failure, having written no input. That case is replayed (seeds and the
# committed corpus) and named on a line of its own; it fails only if the
# replay fails.
set -euo pipefail
GO=${GO:-go}
TAGS=${TAGS:-}
FUZZTIME=${FUZZTIME:-10s}
log=$(mktemp /tmp/vtpmctl-fuzz.XXXXXX)
trap 'rm -f "$log"' EXIT
races=0
for dir in $(git ls-files '*_test.go' | xargs grep -l '^func Fuzz[A-Za-z0-9_]*([A-Za-z_]* \*testing\.F)' | xargs -n1 dirname | sort -u); do
  pkg=./$dir
  for f in $(cat "$dir"/*_test.go | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)([A-Za-z_]* \*testing\.F).*/\1/p'); do
    echo "fuzz $pkg $f ($FUZZTIME)"
    corpus=$dir/testdata/fuzz/$f
    before=$(ls "$corpus" 2>/dev/null | sort || true)
    if "$GO" test -tags "$TAGS" -run '^$' -fuzz "^$f\$" -fuzztime "$FUZZTIME" "$pkg" >"$log" 2>&1; then
      continue
    fi
    after=$(ls "$corpus" 2>/dev/null | sort || true)
    if [ "$before" = "$after" ] && ! grep -q 'Failing input written' "$log" &&
       [ "$(grep -c -- '^--- FAIL' "$log")" = 1 ] && grep -qx '    context deadline exceeded' "$log"; then
      if "$GO" test -tags "$TAGS" -run "^$f\$" -count=1 "$pkg" >"$log" 2>&1; then
        echo "fuzz $pkg $f: Go's coordinator reported its own -fuzztime deadline as a failure (no input written); seeds and corpus replayed: ok"
        races=$((races + 1))
        continue
      fi
    fi
    cat "$log"
    exit 1
  done
done
if [ "$races" -gt 0 ]; then
  echo "fuzz: $races target(s) ended on Go's deadline race, each replayed clean"
fi
