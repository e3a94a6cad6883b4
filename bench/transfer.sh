#!/usr/bin/env bash
# vfs-push / vfs-fetch end to end against magic-wormhole and plain curl + nginx, all on
# loopback: ROUNDS rounds of part 1 (default 3; medians and ranges printed), the tools
# alternating within a round (a 1 GiB file by default, SIZE_MIB sets it).
# 1. One device to another: vfs-push then vfs-fetch through a local vfs-relay (from the
#    start of the push to the fetched file unwrapped on disk), and online (a vfs-fetch
#    --watch running before the push receives it while it uploads); wormhole send | receive of
#    the same file through a local mailbox server and transit relay (both sides with
#    --no-listen, so the bytes go through the relay as vfs's do); curl PUT (WebDAV) then
#    GET of the plaintext through nginx, the no-crypto floor; dd conv=fsync of the same
#    bytes, the floor of a durable write (the relay and vfs-fetch sync what they keep).
#    Every received file is compared with the original (cmp, not timed). vfs's time is
#    split into push and fetch, each with its CPU seconds, and the relay's own time in
#    the upload (its log). The online case and wormhole also print the CPU seconds of all
#    their processes (vfs-push, the watching vfs-fetch and the relay; wormhole's sender,
#    receiver and transit relay): on a machine whose cores they keep busy, CPU over cores
#    is the floor of their wall time. Both are also printed per GiB moved, with their
#    ratio (issue 46 asks for 0.50x), and so is the relay's CPU taking a stored push and
#    serving its fetch (issue 46: at most 2 CPU-s per GiB).
# 2. One push to a group of 5 devices: the bytes the relay received (its tus upload
#    lengths and its blob files) against the ciphertext a device downloads (--raw), and
#    the fetch time on one of them.
# Everything listens on 127.0.0.1 and is stopped on exit, temp folders removed. Use the
# release build: `swift build -c release --scratch-path .build-release`, then
# BIN=.build-release/release bash bench/transfer.sh. The mailbox server (PyPI) is
# installed with pip, pinned, when missing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need nginx; need curl; need python3
# magic-wormhole is compared when it is installed (make deps installs it); else left out.
wormhole=yes
command -v wormhole >/dev/null && command -v twist3 >/dev/null \
  || { wormhole=; echo "magic-wormhole (wormhole, twist3) is not installed: left out (make deps installs it)"; }
SIZE_MIB=${SIZE_MIB:-1024}
ROUNDS=${ROUNDS:-3}
MAILBOX_PYTHON=${MAILBOX_PYTHON:-python3}
MAILBOX_SERVER=magic-wormhole-mailbox-server==0.8.0
for tool in vfs-relay vfs-device vfs-push vfs-fetch; do
  [ -x "$BIN/$tool" ] || { echo "skipped: $BIN/$tool is not built (swift build -c release --scratch-path .build-release)"; exit 0; }
done
if [ -n "$wormhole" ] && ! "$MAILBOX_PYTHON" -c 'import wormhole_mailbox_server' 2>/dev/null; then
  echo "installing $MAILBOX_SERVER (pip)"
  "$MAILBOX_PYTHON" -m pip install -q "$MAILBOX_SERVER" >/dev/null 2>&1 \
    || "$MAILBOX_PYTHON" -m pip install -q --break-system-packages "$MAILBOX_SERVER" >/dev/null
fi

file="$BENCH_DIR/big.bin"
head -c "$((SIZE_MIB << 20))" /dev/urandom > "$file"
size=$(stat -c %s "$file")
echo "$SIZE_MIB MiB of random data, $(nproc) cores; part 1 in $ROUNDS rounds, part 2 in one, on a shared machine"
echo "(other builds may be running): rerun to compare. Everything on 127.0.0.1; files in $(df --output=fstype "$BENCH_DIR" | tail -1) under ${TMPDIR:-/tmp}."

# The relay, and devices: each its own VFS_HOME, its token and identity in files.
data="$BENCH_DIR/relay"
relay() { "$BIN/vfs-relay" "$@" --data "$data"; }
relay init 2>/dev/null
relay org add acme >/dev/null
first_code=$(relay user add ann@acme.example --org acme 2>/dev/null)
# The access lines (--log-level info; off by default) give the PATCH counts and times below.
bench_spawn "$BIN/vfs-relay" serve --listen 127.0.0.1:0 --data "$data" --log-level info > "$BENCH_DIR/relay.out" 2> "$BENCH_DIR/relay.log"
relay_pid=${BENCH_PIDS[-1]}
for _ in $(seq 300); do grep -q 'listening on' "$BENCH_DIR/relay.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^vfs-relay: listening on //p' "$BENCH_DIR/relay.out")
[ -n "$url" ] || { echo "the relay did not start: $(cat "$BENCH_DIR/relay.log")"; exit 1; }
# on DEVICE TOOL ARGS…: a tool run as DEVICE (credential options appended).
# With RSS_OUT set, GNU time writes the tool's peak RSS (KiB) to that file.
on() {
  local who=$1 tool=$2 timer=(); shift 2
  [ -n "${RSS_OUT:-}" ] && timer=(/usr/bin/time -o "$RSS_OUT" -f %M)
  VFS_HOME="$BENCH_DIR/dev/$who" "${timer[@]}" "$BIN/$tool" "$@" \
    --token-file "$BENCH_DIR/dev/$who/token" --identity-file "$BENCH_DIR/dev/$who/identity"
}
enrol() {
  local code accept=()
  # A later device takes the chain, which it never saw, by the laptop's fingerprint.
  if [ ! -e "$BENCH_DIR/dev" ]; then code=$first_code; else
    code=$(relay invite ann@acme.example 2>/dev/null); accept=(--accept-chain "$(on laptop vfs-device fingerprint)")
  fi
  mkdir -p "$BENCH_DIR/dev/$1"
  on "$1" vfs-device enroll "$url" "$code" --name "$1" "${accept[@]}" >/dev/null 2>"$BENCH_DIR/enrol.log" \
    || { echo "enrolling $1 failed: $(cat "$BENCH_DIR/enrol.log")"; exit 1; }
}
for who in laptop phone d1 d2 d3 d4 d5; do enrol "$who"; done
# The laptop, the first device, started the user's device chain: it approves the others.
approve_devices laptop phone d1 d2 d3 d4 d5
on laptop vfs-device group create five d1 d2 d3 d4 d5 >/dev/null
# cpu_timed FILE CMD…: runs CMD (a function or a program), its CPU seconds (user + system) into FILE.
cpu_timed() {
  local out=$1; shift
  local me=$BASHPID before after
  before=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$me/stat")
  "$@"
  after=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$me/stat")
  echo "$before $after" > "$out"
}
# per_gib SECONDS: SECONDS for the SIZE_MIB moved, per GiB.
per_gib() { python3 -c 'import sys; print("%.2fs" % (float(sys.argv[1]) * 1024 / int(sys.argv[2])))' "$1" "$SIZE_MIB"; }
rss_mib() { awk '{printf "%.0f", $1 / 1024}' "$1"; }
# ticks PID: the CPU a running process used so far (user + system, all its threads), in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
cpu_of() { read -r b a < "$1"; python3 -c 'import os,sys; print("%.2f" % ((float(sys.argv[2]) - float(sys.argv[1])) / os.sysconf("SC_CLK_TCK")))' "$b" "$a"; }
cmp_or_fail() { cmp -s "$file" "$1" || { echo "$2: the received file differs from the original"; exit 1; }; }
# Each figure of part 1 is kept per round (ROUNDS, default 3: the tools alternate within
# a round) and printed as the median, with the range when there are several rounds: on a
# virtual machine writing 1 GiB into the page cache alone took 0.3-2.4 s from one run to
# the next (docs/speed.md), so one run says little.
declare -A FIG=()
keep() { FIG[$1]="${FIG[$1]:-} $2"; }
median() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print("%.2f" % statistics.median(v))' ${FIG[$1]}; }
spread() {
  [ "$ROUNDS" -gt 1 ] || return 0
  python3 -c 'import sys; v=[float(x) for x in sys.argv[1:]]; print("(%.2f-%.2f)" % (min(v), max(v)))' ${FIG[$1]}
}

# 1a. vfs: push to the phone, then fetch on the phone.
round_stored() {
  sync; sleep 1
  mkdir "$BENCH_DIR/phone-inbox"
  local log_start t0 t1 t2 transfer relay0 relay1
  log_start=$(wc -l < "$BENCH_DIR/relay.log")
  relay0=$(ticks "$relay_pid")
  t0=$(now)
  transfer=$(RSS_OUT="$BENCH_DIR/push.rss" cpu_timed "$BENCH_DIR/push.cpu" on laptop vfs-push send -q -d phone "$file")
  t1=$(now)
  relay1=$(ticks "$relay_pid")
  RSS_OUT="$BENCH_DIR/fetch.rss" cpu_timed "$BENCH_DIR/fetch.cpu" on phone vfs-fetch -q -C "$BENCH_DIR/phone-inbox" "$transfer"
  t2=$(now)
  echo "$relay0 $relay1" > "$BENCH_DIR/stored-relay-in.cpu"
  echo "$relay1 $(ticks "$relay_pid")" > "$BENCH_DIR/stored-relay-out.cpu"
  cmp_or_fail "$BENCH_DIR/phone-inbox/big.bin" vfs-fetch
  keep vfs_push "$(elapsed "$t0" "$t1")"; keep vfs_fetch "$(elapsed "$t1" "$t2")"; keep vfs_total "$(elapsed "$t0" "$t2")"
  keep push_cpu "$(cpu_of "$BENCH_DIR/push.cpu")"; keep fetch_cpu "$(cpu_of "$BENCH_DIR/fetch.cpu")"
  keep relay_in_cpu "$(cpu_of "$BENCH_DIR/stored-relay-in.cpu")"; keep relay_out_cpu "$(cpu_of "$BENCH_DIR/stored-relay-out.cpu")"
  keep push_rss "$(rss_mib "$BENCH_DIR/push.rss")"; keep fetch_rss "$(rss_mib "$BENCH_DIR/fetch.rss")"
  # The relay's own time for the upload's PATCH requests (its log has each request's
  # milliseconds; a download's is logged when its body starts, so it is not shown).
  keep relay_patch "$(tail -n +"$((log_start + 1))" "$BENCH_DIR/relay.log" | sed -n "s|.*PATCH /v1/uploads/[^ ]* [0-9]* \([0-9.]*\)ms.*|\1|p" \
    | awk '{s += $1} END {printf "%.2f", s / 1000}')"
  rm -rf "$BENCH_DIR/phone-inbox"
}

# 1a'. vfs online: the phone's vfs-fetch --watch runs before the push starts and receives
#     the transfer while it uploads (issue 26); from the push's start to the file
#     complete in the watcher's folder (it appears only once whole and verified).
round_online() {
  mkdir "$BENCH_DIR/phone-online"
  on phone vfs-fetch --watch -C "$BENCH_DIR/phone-online" > "$BENCH_DIR/watch.log" 2>&1 &
  watch_pid=$!
  BENCH_PIDS+=("$watch_pid")
  local t0 t1 t_pushed
  for _ in $(seq 300); do grep -q 'watching' "$BENCH_DIR/watch.log" 2>/dev/null && break; sleep 0.1; done
  grep -q 'watching' "$BENCH_DIR/watch.log" || { echo "vfs-fetch --watch did not start: $(cat "$BENCH_DIR/watch.log")"; exit 1; }
  local watcher relay0 watch0
  watcher=$(pgrep -P "$watch_pid" -x vfs-fetch)
  sync; sleep 1
  relay0=$(ticks "$relay_pid"); watch0=$(ticks "$watcher")
  t0=$(now)
  cpu_timed "$BENCH_DIR/online-push.cpu" on laptop vfs-push send -q -d phone "$file" > /dev/null
  t_pushed=$(now)
  until grep -q '^vfs-fetch: fetched ' "$BENCH_DIR/watch.log"; do
    kill -0 "$watch_pid" 2>/dev/null || { echo "vfs-fetch --watch stopped: $(tail -3 "$BENCH_DIR/watch.log")"; exit 1; }
    sleep 0.01
  done
  t1=$(now)
  echo "$watch0 $(ticks "$watcher")" > "$BENCH_DIR/online-watch.cpu"
  echo "$relay0 $(ticks "$relay_pid")" > "$BENCH_DIR/online-relay.cpu"
  stop_watch
  cmp_or_fail "$BENCH_DIR/phone-online/big.bin" "vfs-fetch --watch"
  keep vfs_online "$(elapsed "$t0" "$t1")"; keep vfs_online_push "$(elapsed "$t0" "$t_pushed")"
  keep online_push_cpu "$(cpu_of "$BENCH_DIR/online-push.cpu")"; keep online_watch_cpu "$(cpu_of "$BENCH_DIR/online-watch.cpu")"
  keep online_relay_cpu "$(cpu_of "$BENCH_DIR/online-relay.cpu")"
  keep online_cpu "$(python3 -c 'import sys; print(sum(float(x) for x in sys.argv[1:]))' \
    "$(cpu_of "$BENCH_DIR/online-push.cpu")" "$(cpu_of "$BENCH_DIR/online-watch.cpu")" "$(cpu_of "$BENCH_DIR/online-relay.cpu")")"
  rm -rf "$BENCH_DIR/phone-online"
}
# $! is the subshell running `on`; vfs-fetch is its child, stopped with it (by parent pid).
watch_pid=
stop_watch() { [ -n "$watch_pid" ] || return 0; pkill -P "$watch_pid" 2>/dev/null || true; kill "$watch_pid" 2>/dev/null || true; wait "$watch_pid" 2>/dev/null || true; }
bench_on_exit stop_watch

# 1b. magic-wormhole through a local mailbox server and transit relay.
if [ -n "$wormhole" ]; then
  mport=$(free_port); tport=$(free_port)
  mkdir -p "$BENCH_DIR/mailbox"
  (cd "$BENCH_DIR/mailbox" && exec "$MAILBOX_PYTHON" -m twisted wormhole-mailbox --port="tcp:$mport:interface=127.0.0.1" \
    --channel-db="$BENCH_DIR/mailbox/relay.sqlite") > "$BENCH_DIR/mailbox/log" 2>&1 &
  BENCH_PIDS+=("$!")
  (cd "$BENCH_DIR/mailbox" && exec twist3 transitrelay --port="tcp:$tport:interface=127.0.0.1") > "$BENCH_DIR/mailbox/transit.log" 2>&1 &
  BENCH_PIDS+=("$!"); transit_pid=$!
  wait_port "$mport"; wait_port "$tport"
  wh=(wormhole --relay-url "ws://127.0.0.1:$mport/v1" --transit-helper "tcp:127.0.0.1:$tport")
fi
# wormhole_pair CODE: one send and its receive (the sender in the background).
wormhole_pair() {
  local send_pid
  "${wh[@]}" send --no-listen --code "$1" "$file" > "$BENCH_DIR/wormhole-send.log" 2>&1 &
  send_pid=$!
  BENCH_PIDS+=("$send_pid")
  "${wh[@]}" receive --no-listen --accept-file -o "$BENCH_DIR/wormhole-in/big.bin" "$1" > "$BENCH_DIR/wormhole-receive.log" 2>&1 \
    || { echo "wormhole receive failed: $(tail -3 "$BENCH_DIR/wormhole-receive.log")"; exit 1; }
  wait "$send_pid" || { echo "wormhole send failed: $(tail -3 "$BENCH_DIR/wormhole-send.log")"; exit 1; }
}
round_wormhole() {
  local t0 t1 transit0
  mkdir -p "$BENCH_DIR/wormhole-in"
  sync; sleep 1
  transit0=$(ticks "$transit_pid")
  t0=$(now)
  # The sender and receiver are this shell's children, waited for: their CPU is counted.
  cpu_timed "$BENCH_DIR/wormhole.cpu" wormhole_pair "7-bench-$$-transfer-$1"
  t1=$(now)
  echo "$transit0 $(ticks "$transit_pid")" > "$BENCH_DIR/transit.cpu"
  cmp_or_fail "$BENCH_DIR/wormhole-in/big.bin" "wormhole receive"
  keep wormhole_total "$(elapsed "$t0" "$t1")"
  keep wormhole_cpu "$(python3 -c 'import sys; print(sum(float(x) for x in sys.argv[1:]))' \
    "$(cpu_of "$BENCH_DIR/wormhole.cpu")" "$(cpu_of "$BENCH_DIR/transit.cpu")")"
  rm -rf "$BENCH_DIR/wormhole-in"
}

# 1c. curl PUT then GET of the plaintext through nginx (WebDAV), no crypto.
start_nginx "$BENCH_DIR/www"
round_curl() {
  local t0 t1 t2
  sync; sleep 1
  t0=$(now)
  curl -sf -o /dev/null -H 'Expect:' -T "$file" "$NGINX_URL/up/big.bin"
  t1=$(now)
  curl -sf -o "$BENCH_DIR/curl.bin" "$NGINX_URL/up/big.bin"
  t2=$(now)
  cmp_or_fail "$BENCH_DIR/curl.bin" "curl GET"
  keep curl_up "$(elapsed "$t0" "$t1")"; keep curl_down "$(elapsed "$t1" "$t2")"; keep curl_total "$(elapsed "$t0" "$t2")"
  rm -f "$BENCH_DIR/curl.bin" "$BENCH_DIR/www/up/big.bin"
}

# 1d. The durable floor: the same bytes copied to a file on the same file system and
#     synced (dd conv=fsync). The relay syncs what it acknowledges and vfs-fetch syncs a
#     file before it appears, so each half writes this much durably; nginx and curl leave
#     their file in the page cache.
round_dd() {
  local t0 t1
  sync; sleep 1
  t0=$(now)
  dd if="$file" of="$BENCH_DIR/dd.bin" bs=1M conv=fsync status=none
  t1=$(now)
  keep dd_sync "$(elapsed "$t0" "$t1")"
  rm -f "$BENCH_DIR/dd.bin"
}

for round in $(seq "$ROUNDS"); do
  round_stored
  round_online
  [ -z "$wormhole" ] || round_wormhole "$round"
  round_curl
  round_dd
done
for name in "${!FIG[@]}"; do printf -v "$name" '%s' "$(median "$name")"; done
push_rss=${push_rss%.*}; fetch_rss=${fetch_rss%.*}

echo
echo "1. $SIZE_MIB MiB from one machine to another, end to end (send start -> file on disk), loopback;"
echo "   medians of $ROUNDS rounds (the tools alternate within a round), the range in parentheses:"
printf '  %-44s %7s %10s %12s\n' "" seconds throughput "vs vfs"
printf '  %-44s %7ss %10s %12s %s\n' "vfs-push + vfs-fetch (relay, stored)" "$vfs_total" "$(mbps "$size" "$vfs_total")" "1.00x" "$(spread vfs_total)"
printf '  %-44s %7ss %10s %12s   peak RSS %s MiB %s\n' "  of which vfs-push (bundle, encrypt, tus up)" "$vfs_push" "$(mbps "$size" "$vfs_push")" \
  "CPU ${push_cpu}s" "$push_rss" "$(spread vfs_push)"
printf '  %-44s %7ss %10s %12s   peak RSS %s MiB %s\n' "  of which vfs-fetch (down, decrypt, unwrap)" "$vfs_fetch" "$(mbps "$size" "$vfs_fetch")" \
  "CPU ${fetch_cpu}s" "$fetch_rss" "$(spread vfs_fetch)"
printf '  %-44s %7ss %10s\n' "  relay's time in the tus PATCH (its log)" "$relay_patch" "$(mbps "$size" "$relay_patch")"
printf '  %-44s %7ss %10s %12s   (taking the push %ss, serving the fetch %ss; target <= 2.00 per GiB)\n' "  relay's CPU for the two" \
  "$(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) + float(sys.argv[2])))' "$relay_in_cpu" "$relay_out_cpu")" "" \
  "$(per_gib "$(python3 -c 'import sys; print(float(sys.argv[1]) + float(sys.argv[2]))' "$relay_in_cpu" "$relay_out_cpu")")/GiB" \
  "$relay_in_cpu" "$relay_out_cpu"
printf '  %-44s %7ss %10s %12s %s\n' "vfs online: vfs-fetch --watch during the push" "$vfs_online" "$(mbps "$size" "$vfs_online")" \
  "$(ratio "$vfs_total" "$vfs_online")" "$(spread vfs_online)"
printf '  %-44s %7ss %10s\n' "  of which the push ran" "$vfs_online_push" "$(mbps "$size" "$vfs_online_push")"
cores=$(nproc)
printf '  %-44s %7ss %10s %12s   (push %ss, fetch --watch %ss, relay %ss)\n' "  CPU of the three, and that over $cores cores" "$online_cpu" "" \
  "$(python3 -c 'import sys; print("%.2fs" % (float(sys.argv[1]) / int(sys.argv[2])))' "$online_cpu" "$cores")" \
  "$online_push_cpu" "$online_watch_cpu" "$online_relay_cpu"
printf '  %-44s %7s %10s %12s   (relay %s/GiB)\n' "  CPU per GiB moved, the three" "" "" "$(per_gib "$online_cpu")/GiB" "$(per_gib "$online_relay_cpu")"
if [ -n "$wormhole" ]; then
  printf '  %-44s %7ss %10s %12s   (target >= 3.00x) %s\n' "wormhole send + receive (--no-listen: relay)" "$wormhole_total" \
    "$(mbps "$size" "$wormhole_total")" "$(ratio "$wormhole_total" "$vfs_total")" "$(spread wormhole_total)"
  printf '  %-44s %7s %10s %12s   (online; issue 26 target >= 2.00x)\n' "  wormhole against vfs online" "" "" \
    "$(ratio "$wormhole_total" "$vfs_online")"
  printf '  %-44s %7ss %10s %12s\n' "  CPU of wormhole's sender, receiver, transit" "$wormhole_cpu" "" "$(per_gib "$wormhole_cpu")/GiB"
  printf '  %-44s %7s %10s %12s   (issue 46 target <= 0.50x)\n' "  vfs online's CPU per GiB / wormhole's" "" "" "$(ratio "$online_cpu" "$wormhole_cpu")"
fi
printf '  %-44s %7ss %10s %12s   (the no-crypto floor)\n' "curl PUT + GET, nginx WebDAV, plaintext" "$curl_total" \
  "$(mbps "$size" "$curl_total")" "$(ratio "$curl_total" "$vfs_total")"
printf '  %-44s %7ss %10s %12s   (vfs-push / PUT; issue 26 target <= 1.30x) %s\n' "  of which PUT" "$curl_up" "$(mbps "$size" "$curl_up")" \
  "$(ratio "$vfs_push" "$curl_up")" "$(spread curl_up)"
printf '  %-44s %7ss %10s %12s   (vfs-fetch / GET; issue 26 target <= 1.30x) %s\n' "  of which GET" "$curl_down" "$(mbps "$size" "$curl_down")" \
  "$(ratio "$vfs_fetch" "$curl_down")" "$(spread curl_down)"
printf '  %-44s %7ss %10s %12s   (vfs-push / it; vfs-fetch / it: %s) %s\n' "dd conv=fsync of the same bytes (durable)" "$dd_sync" \
  "$(mbps "$size" "$dd_sync")" "$(ratio "$vfs_push" "$dd_sync")" "$(ratio "$vfs_fetch" "$dd_sync")" "$(spread dd_sync)"
echo "  (vs vfs > 1.00x: vfs is faster; vfs and wormhole verify what they receive, curl does not)"
if [ -n "$wormhole" ]; then
  echo "  wormhole streams sender -> relay -> receiver at once; a stored transfer uploads, then downloads:"
  echo "  curl's PUT + GET against wormhole, $(ratio "$wormhole_total" "$curl_total"), bounds what any store-and-forward relay reaches here"
fi
# 2. One push to the group of five; the relay's bytes; the fetch on one member.
uploads_before=$(grep -c 'POST /v1/uploads ' "$BENCH_DIR/relay.log" || true)
patches_before=$(grep -c 'PATCH /v1/uploads/' "$BENCH_DIR/relay.log" || true)
sync; sleep 1
t0=$(now)
group_transfer=$(on laptop vfs-push send -q -g five "$file")
t1=$(now)
group_push=$(elapsed "$t0" "$t1")
uploads=$(( $(grep -c 'POST /v1/uploads ' "$BENCH_DIR/relay.log" || true) - uploads_before ))
patches=$(( $(grep -c 'PATCH /v1/uploads/' "$BENCH_DIR/relay.log" || true) - patches_before ))
# The finished upload became the transfer's blob: its recorded size is the tus Upload-Length.
read -r blob tus_length targets < <(python3 - "$data/relay.sqlite" "$group_transfer" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
blob, = db.execute("SELECT blob_id FROM transfers WHERE id = ?", (sys.argv[2],)).fetchone()
size, = db.execute("SELECT size FROM blobs WHERE id = ?", (blob,)).fetchone()
targets, = db.execute("SELECT count(*) FROM outbox WHERE transfer_id = ?", (sys.argv[2],)).fetchone()
print(blob, size, targets)
PY
)
blob_file=$(stat -c %s "$data/blobs/$blob")
ciphertext=$(on d2 vfs-fetch --raw "$group_transfer" | wc -c)
mkdir "$BENCH_DIR/d1-inbox"
t0=$(now)
on d1 vfs-fetch -q -C "$BENCH_DIR/d1-inbox" "$group_transfer"
t1=$(now)
cmp_or_fail "$BENCH_DIR/d1-inbox/big.bin" "vfs-fetch on d1"
group_fetch=$(elapsed "$t0" "$t1")
x() { python3 -c 'import sys; print("%.4fx" % (int(sys.argv[1]) / int(sys.argv[2])))' "$1" "$2"; }

echo
echo "2. $SIZE_MIB MiB pushed once to a group of $targets devices (plaintext $size bytes):"
printf '  %-44s %14s\n' "ciphertext a device downloads (--raw)" "$ciphertext"
printf '  %-44s %14s %10s   (target ~ 1x)\n' "relay: tus Upload-Length, $uploads upload(s)" "$tus_length" "$(x "$tus_length" "$ciphertext")"
printf '  %-44s %14s %10s\n' "relay: the blob's file in its data folder" "$blob_file" "$(x "$blob_file" "$ciphertext")"
printf '  %-44s %14s\n' "relay: PATCH requests for the upload" "$patches"
printf '  %-44s %13ss %10s\n' "vfs-push -g (bundle, encrypt, tus up)" "$group_push" "$(mbps "$size" "$group_push")"
printf '  %-44s %13ss %10s\n' "vfs-fetch on one of them (d1)" "$group_fetch" "$(mbps "$size" "$group_fetch")"
