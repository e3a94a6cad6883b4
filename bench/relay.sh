#!/usr/bin/env bash
# vfs-relay: wrk on GET /v1/items with ITEMS items (default 100); a SIZE_MIB file
# (default 1024) uploaded with tus and downloaded through the relay with curl, against
# curl PUT (WebDAV) and GET of the same file on nginx, both on loopback, with the relay's
# peak RSS; SSE_CONNECTIONS (default 1000) event streams held, the relay's RSS with them,
# and the time for one event to reach them all. Everything listens on 127.0.0.1 and is
# stopped on exit. The relay is started with room for the SSE streams of one device
# (--max-event-streams). Use a release build: `swift build -c release --product vfs-relay`;
# BIN may be an older build, to compare before and after in one session.
# The machine is shared: rerun to compare, the figures move with the other load.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need wrk; need nginx; need curl; need python3
ITEMS=${ITEMS:-100}
SIZE_MIB=${SIZE_MIB:-1024}
SSE=${SSE_CONNECTIONS:-1000}
WRK_SECONDS=${WRK_SECONDS:-10}
ulimit -n 8192 2>/dev/null || true

rss_mib() { awk '/^VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
peak_rss_mib() { awk '/^VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
# Resets the kernel's peak-RSS mark (VmHWM) of a process.
reset_peak() { echo 5 > "/proc/$1/clear_refs"; }

data="$BENCH_DIR/relay"
relay() { "$BIN/vfs-relay" "$@" --data "$data"; }
# An older relay (to compare before and after with BIN set to its build) has no `init`
# and no caps on connections and event streams: those steps are left out for it.
serve_help=$("$BIN/vfs-relay" serve --help 2>&1 || true)
caps=()
if grep -q -- --max-event-streams <<<"$serve_help"; then
  caps=(--max-event-streams $((SSE + 10)) --max-connections $((SSE + 100)))
fi
# A relay with per-user caps (issue 43): room for the one user's streams and requests too.
if grep -q -- --max-user-event-streams <<<"$serve_help"; then
  caps+=(--max-user-event-streams $((SSE + 10)) --max-org-event-streams $((SSE + 10))
         --max-user-requests $((SSE + 100)) --max-org-requests $((SSE + 100)))
fi
# A relay with a cap per client address (issue 45): all of these streams come from 127.0.0.1.
if grep -q -- --max-connections-per-address <<<"$serve_help"; then
  caps+=(--max-connections-per-address $((SSE + 100)))
fi
if "$BIN/vfs-relay" init --help >/dev/null 2>&1; then relay init 2>/dev/null; fi
relay org add acme >/dev/null
code=$(relay user add ann@acme.example --org acme --admin 2>/dev/null)
code2=$(relay invite ann@acme.example 2>/dev/null)
"$BIN/vfs-relay" serve --listen 127.0.0.1:0 --data "$data" "${caps[@]}" > "$BENCH_DIR/relay.out" 2> "$BENCH_DIR/relay.log" &
rpid=$!
BENCH_PIDS+=("$rpid")
for _ in $(seq 300); do grep -q 'listening on' "$BENCH_DIR/relay.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)$/\1/p' "$BENCH_DIR/relay.out")
[ -n "$port" ] || { echo "the relay did not start: $(cat "$BENCH_DIR/relay.log")"; exit 1; }
base="http://127.0.0.1:$port"
enroll() {
  curl -sf -X POST "$base/v1/enroll" -H 'Content-Type: application/json' \
    -d "{\"code\":\"$1\",\"name\":\"$2\",\"platform\":\"linux\",\"recipient\":\"age1bench$2\"}"
}
laptop=$(enroll "$code" laptop)
token=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])' <<<"$laptop")
phone=$(enroll "$code2" phone)
phone_token=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])' <<<"$phone")
phone_id=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["device"]["id"])' <<<"$phone")
auth=(-H "Authorization: Bearer $token")
echo "vfs-relay $(relay --version 2>/dev/null || true) on $base; the machine is shared, figures are noisy"

# 1. wrk on GET /v1/items.
for i in $(seq "$ITEMS"); do
  curl -sf -o /dev/null "${auth[@]}" -H 'Content-Type: application/json' -X POST "$base/v1/items" \
    -d "{\"app\":\"com.example.app$i\",\"name\":\"App $i\",\"groups\":[\"finance\",\"legal\"],\"types\":[\"pdf\",\"txt\"]}"
done
count=$(curl -sf "${auth[@]}" "$base/v1/items" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$count" = "$ITEMS" ] || { echo "expected $ITEMS items, the relay lists $count"; exit 1; }
bytes=$(curl -sf "${auth[@]}" "$base/v1/items" | wc -c)
# The relay's CPU time (user + system, in clock ticks) from /proc: per request it moves
# much less with the machine's other load than requests per second do.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks_before=$(cpu_ticks "$rpid")
wrk -t2 -c32 -d"${WRK_SECONDS}s" --latency -H "Authorization: Bearer $token" "$base/v1/items" > "$BENCH_DIR/wrk.txt"
ticks_after=$(cpu_ticks "$rpid")
rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' "$BENCH_DIR/wrk.txt")
requests=$(awk '/requests in/ {print $1}' "$BENCH_DIR/wrk.txt")
cpu_us=$(awk -v t=$((ticks_after - ticks_before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN {printf "%.0f", n ? t * 1e6 / hz / n : 0}')
p99=$(awk '$1 == "99%" {print $2}' "$BENCH_DIR/wrk.txt")
errors=$(grep -c 'Non-2xx\|Socket errors' "$BENCH_DIR/wrk.txt" || true)
echo
echo "GET /v1/items, $ITEMS items ($bytes bytes), wrk 2 threads, 32 connections, ${WRK_SECONDS}s:"
printf '  %-22s %10s   (target >= 5000)\n' "requests/s" "$rps"
printf '  %-22s %10s   (target < 10ms)\n' "p99 latency" "$p99"
printf '  %-22s %10s   (the relay'"'"'s user + system time / requests)\n' "relay CPU per request" "${cpu_us} us"
[ "$errors" = 0 ] || { echo "  wrk saw errors:"; grep 'Non-2xx\|Socket errors' "$BENCH_DIR/wrk.txt"; }

# 2. A big file through the relay (tus upload, transfer, download) and through nginx.
file="$BENCH_DIR/big.bin"
head -c "$((SIZE_MIB << 20))" /dev/urandom > "$file"
size=$(stat -c %s "$file")
www="$BENCH_DIR/www"
mkdir -p "$www"
cp "$file" "$www/big.bin"
start_nginx "$www"
nbase=$NGINX_URL

sync; sleep 1
reset_peak "$rpid"
location=$(curl -sf -D - -o /dev/null "${auth[@]}" -X POST -H 'Tus-Resumable: 1.0.0' -H "Upload-Length: $size" "$base/v1/uploads" \
  | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
[ -n "$location" ] || { echo "tus creation failed"; exit 1; }
relay_up=$(curl -sf -o /dev/null -w '%{time_total}' "${auth[@]}" -X PATCH -H 'Tus-Resumable: 1.0.0' -H 'Upload-Offset: 0' \
  -H 'Content-Type: application/offset+octet-stream' -H 'Expect:' -T "$file" "$base$location")
upload_id=${location##*/}
transfer=$(curl -sf "${auth[@]}" -H 'Content-Type: application/json' -X POST "$base/v1/transfers" \
  -d "{\"upload\":\"$upload_id\",\"devices\":[\"$phone_id\"]}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
relay_down=$(curl -sf -o "$BENCH_DIR/down.bin" -w '%{time_total}' -H "Authorization: Bearer $phone_token" \
  "$base/v1/transfers/$transfer/content")
relay_peak=$(peak_rss_mib "$rpid")
cmp -s "$file" "$BENCH_DIR/down.bin" || { echo "the relay's download differs from the upload"; exit 1; }
rm -f "$BENCH_DIR/down.bin"
sync; sleep 1
nginx_up=$(curl -sf -o /dev/null -w '%{time_total}' -H 'Expect:' -T "$file" "$nbase/up/big.bin")
nginx_down=$(curl -sf -o "$BENCH_DIR/down.bin" -w '%{time_total}' "$nbase/big.bin")
cmp -s "$file" "$BENCH_DIR/down.bin" || { echo "nginx's download differs"; exit 1; }
rm -f "$BENCH_DIR/down.bin"
echo
echo "$SIZE_MIB MiB through the relay (tus PATCH up, transfer content down) vs nginx (WebDAV PUT up, GET down), curl, loopback:"
printf '  %-10s %10s %10s %10s   (target <= 2.00x)\n' "" relay nginx relay/nginx
printf '  %-10s %9.2fs %9.2fs %10s\n' upload "$relay_up" "$nginx_up" "$(ratio "$relay_up" "$nginx_up")"
printf '  %-10s %9.2fs %9.2fs %10s\n' download "$relay_down" "$nginx_down" "$(ratio "$relay_down" "$nginx_down")"
printf '  %-22s %8s MiB   (target < 128 MiB)\n' "relay peak RSS" "$relay_peak"
rm -f "$file" "$www/big.bin" "$www/up/big.bin"

# 3. SSE_CONNECTIONS event streams of one device, and one event to all of them.
rss_before=$(rss_mib "$rpid")
python3 - "$port" "$token" "$SSE" "$BENCH_DIR/fire" > "$BENCH_DIR/sse.txt" 2>&1 <<'PY' &
import asyncio, json, os, sys, time, urllib.request
port, token, n, fire = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]

async def stream(ready, fired, got):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0], head
    buffer = b""
    while b"retry:" not in buffer:
        buffer += await reader.read(4096)
    ready.append(1)
    await fired.wait()
    while b"event: group" not in buffer:
        chunk = await reader.read(4096)
        if not chunk:
            raise RuntimeError("stream ended")
        buffer += chunk
    got.append(time.monotonic())
    writer.close()

async def main():
    ready, got, fired = [], [], asyncio.Event()
    tasks = [asyncio.create_task(stream(ready, fired, got)) for _ in range(n)]
    while len(ready) < n:
        failed = [t for t in tasks if t.done() and t.exception()]
        if failed:
            raise failed[0].exception()
        await asyncio.sleep(0.05)
    print("held", len(ready), flush=True)
    while not os.path.exists(fire):  # the script reads the relay's RSS meanwhile
        await asyncio.sleep(0.05)
    fired.set()
    body = json.dumps({"name": "bench-sse"}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/groups", data=body, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    start = time.monotonic()
    await asyncio.get_running_loop().run_in_executor(None, lambda: urllib.request.urlopen(request).read())
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    print("all %d %.1f" % (len(got), (max(got) - start) * 1000), flush=True)

asyncio.run(main())
PY
ssepid=$!
BENCH_PIDS+=("$ssepid")
held_start=$(date +%s.%N)
for _ in $(seq 1200); do
  grep -q '^held' "$BENCH_DIR/sse.txt" && break
  kill -0 "$ssepid" 2>/dev/null || break
  sleep 0.1
done
grep -q '^held' "$BENCH_DIR/sse.txt" || { echo "the SSE client failed: $(tail -5 "$BENCH_DIR/sse.txt")"; exit 1; }
held_s=$(python3 -c "import time,sys; print('%.1f' % (time.time()-float(sys.argv[1])))" "$held_start")
sleep 1
rss_held=$(rss_mib "$rpid")
touch "$BENCH_DIR/fire"
wait "$ssepid" || { echo "the SSE client failed: $(tail -5 "$BENCH_DIR/sse.txt")"; exit 1; }
read -r _ reached fanout_ms < <(grep '^all' "$BENCH_DIR/sse.txt")
echo
echo "$SSE event streams of one device held at once (opened in ${held_s}s):"
printf '  %-34s %8s MiB (%s MiB before)   (target < 256 MiB)\n' "relay RSS with them open" "$rss_held" "$rss_before"
printf '  %-34s %8s ms   (%s streams got it)\n' "one event (POST /v1/groups) to all" "$fanout_ms" "$reached"
