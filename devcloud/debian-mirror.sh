#!/bin/bash
# Prints the Debian mirror a debootstrap chroot is built from (the release
# clouds, `make dist-test`): $VTPMCTL_DEBIAN_MIRROR (or $MIRROR) when set,
# else the machine's own apt sources: the first enabled `deb` entry for a
# Debian suite's main component, in the order apt reads them
# (sources.list, then sources.list.d/*.list and *.sources by name; one-line
# and deb822 formats). There is no built-in public default: an air-gapped
# site runs its own mirror, and a build must not reach out past it. No
# mirror found is one line on stderr and exit 2.
#
#   MIRROR=$(devcloud/debian-mirror.sh) || exit
#
# VTPMCTL_APT_DIR (default /etc/apt) is for tests.
set -euo pipefail
m=${VTPMCTL_DEBIAN_MIRROR:-${MIRROR:-}}
if [ -n "$m" ]; then
  printf '%s\n' "$m"
  exit 0
fi
dir=${VTPMCTL_APT_DIR:-/etc/apt}
files=()
[ -f "$dir/sources.list" ] && files+=("$dir/sources.list")
for f in "$dir"/sources.list.d/*; do
  case $f in *.list|*.sources) [ -f "$f" ] && files+=("$f") ;; esac
done
# A Debian suite: a codename or class, not -security/-updates/-backports
# (another distribution's suites, e.g. Ubuntu's, do not match).
m=$(awk '
  function debian(s) { return s ~ /^(buzz|rex|bo|hamm|slink|potato|woody|sarge|etch|lenny|squeeze|wheezy|jessie|stretch|buster|bullseye|bookworm|trixie|forky|duke|sid|stable|testing|unstable|oldstable|oldoldstable)$/ }
  function has(list, w,   n, a, i) { n = split(list, a, /[ \t]+/); for (i = 1; i <= n; i++) if (a[i] == w) return 1; return 0 }
  function anydebian(list,   n, a, i) { n = split(list, a, /[ \t]+/); for (i = 1; i <= n; i++) if (debian(a[i])) return 1; return 0 }
  function stanza() {
    if (!found && has(types, "deb") && uris != "" && anydebian(suites) && has(comps, "main") && tolower(enabled) != "no") { split(uris, u, /[ \t]+/); print u[1]; found = 1; exit }
    types = uris = suites = comps = enabled = ""
  }
  FNR == 1 { if (deb822) stanza(); deb822 = FILENAME ~ /\.sources$/ }
  /^[ \t]*#/ { next }
  deb822 && /^[ \t]*$/ { stanza(); next }
  deb822 && /^[A-Za-z-]+:/ {
    k = tolower($1); sub(/:$/, "", k); v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/[ \t]+$/, "", v)
    if (k == "types") types = v; else if (k == "uris") uris = v; else if (k == "suites") suites = v
    else if (k == "components") comps = v; else if (k == "enabled") enabled = v
    next
  }
  !deb822 && $1 == "deb" {
    i = 2
    if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
    rest = ""; for (j = i + 2; j <= NF; j++) rest = rest " " $j
    if (debian($(i + 1)) && has(rest, "main")) { print $i; found = 1; exit }
  }
  END { if (deb822 && !found) stanza() }
' "${files[@]}" /dev/null)
if [ -z "$m" ]; then
  echo "debian-mirror.sh: no Debian mirror in $dir/sources.list{,.d} (a deb entry for a Debian suite with main); set VTPMCTL_DEBIAN_MIRROR=URL" >&2
  exit 2
fi
printf '%s\n' "$m"
