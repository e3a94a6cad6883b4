#!/bin/bash
# A throwaway S3 engine for the tests: a one-node Ceph cluster (one mon, one OSD on
# memstore, so in RAM) and a RADOS Gateway on a free 127.0.0.1 port, all in a temp
# folder, no systemd, no disk. Debian's radosgw, ceph-mon, ceph-osd and ceph-common
# (make deps installs them). The steps follow Ceph's src/vstart.sh and
# shared/docs/ceph-fixture.md.
#
#   rgw-fixture.sh start [PARENT]   prints shell assignments: S3_ENDPOINT S3_ACCESS_KEY
#                                   S3_SECRET_KEY S3_REGION RGW_FIXTURE_DIR CEPH_CONF
#   rgw-fixture.sh stop DIR         kills the daemons started in DIR and removes it
#   rgw-fixture.sh bucket DIR NAME [lock]
#                                   creates a bucket (with curl, not the code under test);
#                                   "lock": with S3 Object Lock enabled (so versioned)
#
# A start that fails kills what it started, prints the log tails and exits 1.
# Waits are for conditions, each with a generous deadline (DEADLINE seconds, 120 by default).
set -euo pipefail

DEADLINE=${DEADLINE:-120}

die() { echo "rgw-fixture: $*" >&2; exit 1; }

# A free loopback port (bind and release; the daemons bind it moments later).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Waits until "$@" succeeds, up to DEADLINE seconds; fails early if a daemon died.
wait_for() {
  local what=$1; shift
  local end=$((SECONDS + DEADLINE))
  until "$@" >/dev/null 2>&1; do
    for pid in $(cat "$DIR/pids" 2>/dev/null); do
      alive "$pid" || fail "a daemon (pid $pid) exited while waiting for $what"
    done
    [ $SECONDS -lt $end ] || fail "no $what after ${DEADLINE}s"
    sleep 0.1
  done
}

# A process that is gone or a zombie counts as dead.
alive() {
  [ -r "/proc/$1/stat" ] || return 1
  local state
  state=$(sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f1)
  [ "$state" != Z ] && [ "$state" != X ]
}

kill_all() {
  local d=$1
  [ -f "$d/pids" ] || return 0
  for pid in $(cat "$d/pids"); do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in $(cat "$d/pids"); do
    local end=$((SECONDS + 30))
    while alive "$pid" && [ $SECONDS -lt $end ]; do sleep 0.05; done
  done
}

fail() {
  echo "rgw-fixture: error: $*" >&2
  for log in "$DIR"/log/*.log "$DIR"/*.out; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -n 15 "$log" >&2; }
  done
  kill_all "$DIR"
  echo "rgw-fixture: the folder $DIR is kept for a look; rgw-fixture.sh stop $DIR removes it" >&2
  exit 1
}

# Starts a daemon in the background, its output in a file, and none of the other
# descriptors this script inherited: a test process's pipe held open by a daemon would
# never reach end of file (a tool run beside the fixture's start waited for ever).
daemon() {
  local name=$1; shift
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
    done
    exec "$@"
  ) </dev/null >"$DIR/$name.out" 2>&1 &
  echo $! >> "$DIR/pids"
}

ceph_() { timeout 30 ceph -c "$CONF" --connect-timeout 20 "$@"; }

start() {
  for tool in ceph-mon ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool curl python3; do
    command -v $tool >/dev/null || die "$tool is missing: install radosgw ceph-mon ceph-osd ceph-common (make deps does)"
  done
  DIR=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/vfs-rgw-XXXXXX")
  CONF=$DIR/ceph.conf
  mkdir -p "$DIR/run" "$DIR/log" "$DIR/mon.a" "$DIR/osd.0" "$DIR/rgw"
  : > "$DIR/pids"
  local fsid mon_port rgw_port
  fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  mon_port=$(free_port)
  rgw_port=$(free_port)
  cat > "$CONF" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr1 = false
ms bind msgr2 = true
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
log file = $DIR/log/\$name.log
keyring = $DIR/keyring
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
paxos propose interval = 0.05
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim allowed = false
mon mgr mkfs grace = 31536000
mon data avail crit = 0
mon data avail warn = 0
[client]
admin socket = $DIR/run/\$name.\$pid.asok
[mon]
admin socket = $DIR/run/\$name.asok
[mon.a]
mon data = $DIR/mon.a
[osd]
admin socket = $DIR/run/\$name.asok
osd data = $DIR/osd.\$id
keyring = $DIR/osd.\$id/keyring
osd objectstore = memstore
memstore device bytes = ${MEMSTORE_BYTES:-4294967296}
[client.rgw.a]
# Idle keep-alive connections live longer on the gateway (5 min) than in AsyncHTTPClient's
# pool (60 s), so the client always closes first: with beast's default of 65 s a test
# waiting on a busy machine reused a connection the gateway had just closed, and a 5 MiB
# part failed with "stream ended at an unexpected time" (twice in a full run).
rgw frontends = beast endpoint=127.0.0.1:$rgw_port request_timeout_ms=300000
rgw data = $DIR/rgw
rgw thread pool size = 16
rgw gc obj min wait = 10
rgw gc processor period = 10
EOF
  local keyring=$DIR/keyring
  ceph-authtool --create-keyring --gen-key --name=mon. "$keyring" --cap mon 'allow *' >/dev/null
  ceph-authtool --gen-key --name=client.admin "$keyring" --cap mon 'allow *' --cap osd 'allow *' \
    --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
  monmaptool --create --clobber --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$keyring" >"$DIR/mkfs-mon.out" 2>&1 \
    || fail "ceph-mon --mkfs failed"
  daemon mon ceph-mon -c "$CONF" -i a -f
  wait_for "monitor quorum" ceph_ mon stat

  local uuid key
  uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  key=$(ceph-authtool --gen-print-key)
  printf '{"cephx_secret": "%s"}' "$key" > "$DIR/osd-new.json"
  ceph_ osd new "$uuid" -i "$DIR/osd-new.json" >/dev/null || fail "ceph osd new failed"
  printf '[osd.0]\nkey = %s\n' "$key" > "$DIR/osd.0/keyring"
  ceph-osd -c "$CONF" -i 0 --mkfs --key "$key" --osd-uuid "$uuid" >"$DIR/mkfs-osd.out" 2>&1 || fail "ceph-osd --mkfs failed"
  daemon osd ceph-osd -c "$CONF" -i 0 -f
  osd_up() { ceph_ osd dump | grep -q '^osd\.0 up'; }
  wait_for "osd.0 up" osd_up

  ceph_ auth get-or-create client.rgw.a mon 'allow rw' osd 'allow rwx' mgr 'allow rw' >> "$keyring"
  daemon rgw radosgw -c "$CONF" -n client.rgw.a -f
  wait_for "gateway answering on port $rgw_port" curl -sf -o /dev/null "http://127.0.0.1:$rgw_port/"
  local access secret
  access=$(python3 -c 'import secrets; print("VFS" + secrets.token_hex(8).upper())')
  secret=$(python3 -c 'import secrets; print(secrets.token_urlsafe(30))')
  radosgw-admin -c "$CONF" user create --uid vfs-test --display-name 'vfs tests' \
    --access-key "$access" --secret-key "$secret" >"$DIR/user.json" 2>"$DIR/user.out" || fail "radosgw-admin user create failed"
  cat > "$DIR/env" <<EOF
S3_ENDPOINT=http://127.0.0.1:$rgw_port
S3_ACCESS_KEY=$access
S3_SECRET_KEY=$secret
S3_REGION=us-east-1
RGW_FIXTURE_DIR=$DIR
CEPH_CONF=$CONF
EOF
  sed 's/^/export /' "$DIR/env"
}

case ${1:-} in
  start) shift; start "$@" ;;
  stop)
    [ -n "${2:-}" ] && [ -f "$2/ceph.conf" ] || die "usage: rgw-fixture.sh stop DIR (a folder made by start)"
    kill_all "$2"
    rm -rf "$2" ;;
  bucket)
    [ -f "${2:-}/env" ] && [ -n "${3:-}" ] || die "usage: rgw-fixture.sh bucket DIR NAME [lock]"
    # shellcheck disable=SC1091
    . "$2/env"
    # "lock": a bucket with S3 Object Lock enabled (versioned; issue 48's retention).
    lock=()
    [ "${4:-}" = lock ] && lock=(-H 'x-amz-bucket-object-lock-enabled: true')
    curl -sf --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
      -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "${lock[@]}" -X PUT "$S3_ENDPOINT/$3" -o /dev/null \
      || die "cannot create bucket $3" ;;
  *) die "usage: rgw-fixture.sh start [PARENT] | stop DIR | bucket DIR NAME [lock]" ;;
esac
