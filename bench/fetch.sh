#!/usr/bin/env bash
# vfs-fetch alone, and the relay serving it: ROUNDS rounds (3 by default) of a push of
# SIZE_MIB (1024 by default) of random data to a device through a local vfs-relay, then
# its fetch (download, SHA-256, decrypt, unwrap onto disk, acknowledge), each fetch into
# a folder of its own (kept until the end, as a first fetch on a machine would find no
# memory freed just before). Per fetch: wall seconds, CPU seconds (user + system) of
# vfs-fetch, and the relay's CPU seconds while it served the download and the ack.
# With BASE=DIR (another build's release folder), each round fetches with BASE's
# vfs-fetch too, the order alternating from round to round; BIN's tools do the rest
# (the relay is BIN's, or RELAY_BIN's). Everything on 127.0.0.1, removed on exit.
# BIN=.build-release/release BASE=/path/to/main/.build/release bash bench/fetch.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SIZE_MIB=${SIZE_MIB:-1024}
ROUNDS=${ROUNDS:-3}
RELAY_BIN=$(cd "${RELAY_BIN:-$BIN}" && pwd)
for tool in vfs-relay vfs-device vfs-push vfs-fetch; do
  [ -x "$BIN/$tool" ] || { echo "skipped: $BIN/$tool is not built (swift build -c release --scratch-path .build-release)"; exit 0; }
done
builds=("$BIN")
if [ -n "${BASE:-}" ]; then
  BASE=$(cd "$BASE" && pwd)
  [ -x "$BASE/vfs-fetch" ] || { echo "BASE=$BASE has no vfs-fetch"; exit 1; }
  builds+=("$BASE")
fi

data="$BENCH_DIR/relay"
relay() { "$BIN/vfs-relay" "$@" --data "$data"; }
relay init 2>/dev/null
relay org add acme >/dev/null
first_code=$(relay user add ann@acme.example --org acme 2>/dev/null)
bench_spawn "$RELAY_BIN/vfs-relay" serve --listen 127.0.0.1:0 --data "$data" > "$BENCH_DIR/relay.out" 2> "$BENCH_DIR/relay.log"
relay_pid=${BENCH_PIDS[-1]}
for _ in $(seq 300); do grep -q 'listening on' "$BENCH_DIR/relay.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^vfs-relay: listening on //p' "$BENCH_DIR/relay.out")
[ -n "$url" ] || { echo "the relay did not start: $(cat "$BENCH_DIR/relay.log")"; exit 1; }
# on DEVICE DIR TOOL ARGS…: DIR's TOOL run as DEVICE.
on() {
  local who=$1 dir=$2 tool=$3; shift 3
  VFS_HOME="$BENCH_DIR/dev/$who" "$dir/$tool" "$@" --token-file "$BENCH_DIR/dev/$who/token" --identity-file "$BENCH_DIR/dev/$who/identity"
}
for who in laptop phone; do
  # The phone takes the chain, which it never saw, by the laptop's fingerprint.
  accept=()
  if [ "$who" = laptop ]; then code=$first_code; else
    code=$(relay invite ann@acme.example 2>/dev/null); accept=(--accept-chain "$(on laptop "$BIN" vfs-device fingerprint)")
  fi
  mkdir -p "$BENCH_DIR/dev/$who"
  on "$who" "$BIN" vfs-device enroll "$url" "$code" --name "$who" "${accept[@]}" >/dev/null
done
file="$BENCH_DIR/big.bin"
head -c "$((SIZE_MIB << 20))" /dev/urandom > "$file"
size=$(stat -c %s "$file")
relay_ticks() { awk '{print $14 + $15}' "/proc/$relay_pid/stat"; }

echo "$SIZE_MIB MiB pushed, then fetched, $ROUNDS rounds, $(nproc) cores (shared: compare CPU seconds more than wall)."
printf '  %-50s %8s %8s %8s %10s\n' "vfs-fetch of" wall "CPU" "sys" "relay CPU"
n=0
declare -A sums
for round in $(seq "$ROUNDS"); do
  order=("${builds[@]}")
  if [ $((round % 2)) = 0 ] && [ ${#builds[@]} = 2 ]; then order=("${builds[1]}" "${builds[0]}"); fi
  for build in "${order[@]}"; do
    n=$((n + 1))
    mkdir "$BENCH_DIR/in.$n"
    sync; sleep 1
    transfer=$(on laptop "$BIN" vfs-push send -q -d phone "$file")
    before=$(relay_ticks)
    /usr/bin/time -f '%e %U %S' -o "$BENCH_DIR/time" env VFS_HOME="$BENCH_DIR/dev/phone" "$build/vfs-fetch" -q -C "$BENCH_DIR/in.$n" "$transfer" \
      --token-file "$BENCH_DIR/dev/phone/token" --identity-file "$BENCH_DIR/dev/phone/identity"
    after=$(relay_ticks)
    cmp -s "$file" "$BENCH_DIR/in.$n/big.bin" || { echo "$build: the fetched file differs from the original"; exit 1; }
    read -r wall user sys < "$BENCH_DIR/time"
    relay_cpu=$(python3 -c 'import os,sys; print("%.2f" % ((int(sys.argv[2]) - int(sys.argv[1])) / os.sysconf("SC_CLK_TCK")))' "$before" "$after")
    cpu=$(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) + float(sys.argv[2])))' "$user" "$sys")
    printf '  %-50s %7ss %7ss %7ss %9ss\n' "$build" "$wall" "$cpu" "$sys" "$relay_cpu"
    sums[$build]="${sums[$build]:-} $wall/$cpu/$relay_cpu"
  done
done
echo "  medians (wall, CPU, relay CPU) and throughput:"
for build in "${builds[@]}"; do
  python3 - "$build" "$size" ${sums[$build]} <<'PY'
import statistics, sys
build, size, runs = sys.argv[1], int(sys.argv[2]), [tuple(map(float, r.split("/"))) for r in sys.argv[3:]]
wall, cpu, relay = (statistics.median(x) for x in zip(*runs))
print("  %-50s %7.2fs %7.2fs %9.2fs   %.0f MB/s" % (build, wall, cpu, relay, size / wall / 1e6))
PY
done
