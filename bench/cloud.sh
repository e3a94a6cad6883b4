#!/usr/bin/env bash
# vfs-cloud get --stdout of a 1 GiB file (SIZE_MIB sets it) through a local relay:
# time to first plaintext byte and throughput, against curl of the same ciphertext
# (the relay's blob file) served by nginx, the no-crypto floor. One device; the get
# streams (decrypts while the Range download runs), so its first byte comes long before
# the last. Everything on 127.0.0.1, stopped on exit. Use the release build:
# `swift build -c release --scratch-path .build-release`, then
# BIN=.build-release/release bash bench/cloud.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need nginx; need curl; need python3
SIZE_MIB=${SIZE_MIB:-1024}
for tool in vfs-relay vfs-device vfs-cloud; do
  [ -x "$BIN/$tool" ] || { echo "skipped: $BIN/$tool is not built (swift build -c release --scratch-path .build-release)"; exit 0; }
done
file="$BENCH_DIR/big.bin"
head -c "$((SIZE_MIB << 20))" /dev/urandom > "$file"
size=$(stat -c %s "$file")
echo "$SIZE_MIB MiB of random data, $(nproc) cores; ONE run on a shared machine: rerun to compare."

data="$BENCH_DIR/relay"
relay() { "$BIN/vfs-relay" "$@" --data "$data"; }
relay init 2>/dev/null
relay org add acme >/dev/null
code=$(relay user add ann@acme.example --org acme 2>/dev/null)
bench_spawn "$BIN/vfs-relay" serve --listen 127.0.0.1:0 --data "$data" > "$BENCH_DIR/relay.out" 2> "$BENCH_DIR/relay.log"
for _ in $(seq 300); do grep -q 'listening on' "$BENCH_DIR/relay.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^vfs-relay: listening on //p' "$BENCH_DIR/relay.out")
[ -n "$url" ] || { echo "the relay did not start: $(cat "$BENCH_DIR/relay.log")"; exit 1; }
dev="$BENCH_DIR/dev"
mkdir -p "$dev"
on() { local tool=$1; shift; VFS_HOME="$dev" "$BIN/$tool" "$@" --token-file "$dev/token" --identity-file "$dev/identity"; }
on vfs-device enroll "$url" "$code" --name bench >/dev/null 2>&1
on vfs-cloud put -q "$file" /big.bin
blob=$(ls "$data/blobs" | head -1)
cipher=$(stat -c %s "$data/blobs/$blob")

# Time to first byte and total of a command writing to its stdout (read and dropped).
ttfb() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
start = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, bufsize=0)
first = None
n = 0
while True:
    chunk = p.stdout.read(1 << 20)
    if not chunk:
        break
    if first is None:
        first = time.monotonic()
    n += len(chunk)
p.wait()
end = time.monotonic()
print("%.3f %.3f %d %d" % ((first or end) - start, end - start, n, p.returncode))
PY
}
read -r v_first v_total v_bytes v_status < <(ttfb env VFS_HOME="$dev" "$BIN/vfs-cloud" get /big.bin --stdout \
  --token-file "$dev/token" --identity-file "$dev/identity")
[ "$v_status" = 0 ] && [ "$v_bytes" = "$size" ] || { echo "vfs-cloud get failed (status $v_status, $v_bytes bytes)"; exit 1; }

root="$BENCH_DIR/www"
mkdir -p "$root"
cp "$data/blobs/$blob" "$root/big.age"
start_nginx "$root"
read -r c_first c_total < <(curl -s -o /dev/null -w '%{time_starttransfer} %{time_total}\n' "$NGINX_URL/big.age")

printf '%-50s %10s %10s %12s\n' "" "first byte" "total" "throughput"
printf '%-50s %9ss %9ss %12s\n' "vfs-cloud get --stdout (decrypted, $size B)" "$v_first" "$v_total" "$(mbps "$size" "$v_total")"
printf '%-50s %9ss %9ss %12s\n' "curl from nginx (ciphertext, $cipher B)" "$c_first" "$c_total" "$(mbps "$cipher" "$c_total")"
echo "vfs-cloud / curl total: $(ratio "$v_total" "$c_total")"
