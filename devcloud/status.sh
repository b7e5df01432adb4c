#!/bin/bash
# Say what of the devcloud is up. Exit 0 when everything is, 1 otherwise.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
down=0
printf '%-20s %-8s %s\n' SERVICE STATE DETAIL
extra=""; urls=""
# Cinder and Ceph once devcloud/cinder.sh has set them up (the mgr is optional).
if [ -f "$D/cinder/.enabled" ]; then
  extra="ceph-mon ceph-osd cinder-api cinder-scheduler cinder-volume"
  [ -f "$R/ceph-mgr.pid" ] && extra="$extra ceph-mgr"
  urls="http://127.0.0.1:$CINDER_PORT/"
fi
for n in keystone glance-api placement-api barbican-api rabbitmq postgres nova-api nova-conductor \
         nova-scheduler neutron-emptylists libvirtd nova-compute nova-compute-fake $extra; do
  pid=$(pid_of "$n")
  if alive "$pid"; then
    rss=$(awk '/^VmRSS/{printf "%d MiB", $2/1024}' "/proc/$pid/status")
    printf '%-20s %-8s pid %s, %s\n' "$n" up "$pid" "$rss"
  else
    printf '%-20s %-8s %s\n' "$n" DOWN "log: $L/$n.out"; down=1
  fi
done
for url in "$KS/v3" http://127.0.0.1:9292/ http://127.0.0.1:8778/ http://127.0.0.1:9311/ http://127.0.0.1:8774/ $urls; do
  code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$url" || true)
  printf '%-20s %-8s %s\n' "${url#http://}" "$([ "$code" != 000 ] && echo answers || echo SILENT)" "HTTP $code"
  [ "$code" = 000 ] && down=1
done
[ -f "$B/clouds.yaml" ] && echo "clouds.yaml: $B/clouds.yaml"
exit $down
