#!/usr/bin/env bash
# vfs-relay on PostgreSQL: policy requests/s (wrk on GET /v1/items, ITEMS items, default
# 20) and transfers/s (TRANSFERS small transfers, default 400, by 16 clients: tus create,
# PATCH, POST /v1/transfers, ack) for one relay on SQLite, one on PostgreSQL, and two on
# PostgreSQL behind nginx (round robin), in one run; the per-request latency PostgreSQL
# adds (sequential GET /v1/inbox on one keep-alive connection, median); and how long an
# event stored through one instance takes to reach a stream on the other (LISTEN/NOTIFY);
# and a SIZE push (default 1G) through one relay fetched through the other, with the blobs
# in one folder and in a RADOS Gateway bucket (Tests/tools/rgw-fixture.sh, skipped
# without Ceph's packages): throughput and each relay's peak RSS.
# PostgreSQL is a private cluster (Debian's postgresql package) in the bench folder on a
# unix socket, run as nobody when the bench runs as root; everything else listens on
# 127.0.0.1 and is stopped on exit. Use a release build.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need wrk; need nginx; need curl; need python3
SIZE=${SIZE:-1G}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] || { echo "skipped: PostgreSQL is not installed (make deps installs it)"; exit 0; }
ITEMS=${ITEMS:-20}
TRANSFERS=${TRANSFERS:-400}
WRK_SECONDS=${WRK_SECONDS:-10}

# The cluster: as root, owned by nobody (initdb refuses root), in a folder of its own
# (nobody can't enter the 0700 bench folder); stopped and removed on exit.
pg=$(mktemp -d "${TMPDIR:-/tmp}/vfs-bench-pg.XXXXXX")
as_pg=()
if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$pg"; chmod 700 "$pg"; as_pg=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
(cd / && "${as_pg[@]}" "$PGBIN/initdb" -D "$pg/data" -U relay --auth=trust -E UTF8 --no-sync >/dev/null)
(cd / && "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$pg/data" -l "$pg/log" -w -o "-k $pg -c listen_addresses= -c max_connections=200" start >/dev/null)
pg_stop() { (cd / && "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$pg/data" -m fast -w stop >/dev/null 2>&1) || true; rm -rf "$pg"; bench_stop; }
trap pg_stop EXIT
(cd / && "${as_pg[@]}" "$PGBIN/createdb" -h "$pg" -U relay relay)
url="postgres://relay@/relay?host=$pg"

# start_relay NAME ARGS…: serves on a free port, sets PORT.
start_relay() {
  local name=$1; shift
  "$BIN/vfs-relay" serve --listen 127.0.0.1:0 "$@" > "$BENCH_DIR/$name.out" 2> "$BENCH_DIR/$name.log" &
  BENCH_PIDS+=("$!")
  for _ in $(seq 300); do grep -q 'listening on' "$BENCH_DIR/$name.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)$/\1/p' "$BENCH_DIR/$name.out")
  [ -n "$PORT" ] || { echo "relay $name did not start: $(tail -3 "$BENCH_DIR/$name.log")"; exit 1; }
}

# setup ARGS…: an organisation, a user with a laptop and a phone enrolled, ITEMS items.
setup() {
  local base=$1; shift
  "$BIN/vfs-relay" init "$@" 2>/dev/null
  "$BIN/vfs-relay" org add acme "$@" >/dev/null
  local code code2
  code=$("$BIN/vfs-relay" user add ann@acme.example --org acme --admin "$@" 2>/dev/null)
  code2=$("$BIN/vfs-relay" invite ann@acme.example "$@" 2>/dev/null)
  python3 - "$base" "$code" "$code2" "$ITEMS" > "$BENCH_DIR/tokens" <<'PY'
import json, sys, urllib.request
base, code, code2, items = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def call(method, path, body, token=None):
    headers = {"Content-Type": "application/json"}
    if token: headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method=method, headers=headers)
    return json.load(urllib.request.urlopen(request))
laptop = call("POST", "/v1/enroll", {"code": code, "name": "laptop", "platform": "linux", "recipient": "age1benchlaptop"})
phone = call("POST", "/v1/enroll", {"code": code2, "name": "phone", "platform": "linux", "recipient": "age1benchphone"})
for i in range(items):
    call("POST", "/v1/items", {"app": "com.example.app%d" % i, "name": "App %d" % i, "groups": ["finance"], "types": ["pdf"]}, laptop["token"])
print(laptop["token"], phone["token"], phone["device"]["id"])
PY
  read -r TOKEN PHONE_TOKEN PHONE_ID < "$BENCH_DIR/tokens"
}

# measure LABEL BASE [SECOND_BASE]: wrk, transfers/s, sequential latency.
measure() {
  local label=$1 base=$2 rps p99 tps latency
  wrk -t2 -c32 -d"${WRK_SECONDS}s" --latency -H "Authorization: Bearer $TOKEN" "$base/v1/items" > "$BENCH_DIR/wrk.txt"
  rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' "$BENCH_DIR/wrk.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$BENCH_DIR/wrk.txt")
  if grep -q 'Non-2xx\|Socket errors' "$BENCH_DIR/wrk.txt"; then rps="$rps (errors: $(grep 'Non-2xx\|Socket errors' "$BENCH_DIR/wrk.txt" | tr -s ' ' | tr '\n' ' '))"; fi
  read -r tps latency < <(python3 - "$base" "$TOKEN" "$PHONE_TOKEN" "$PHONE_ID" "$TRANSFERS" <<'PY'
import http.client, json, statistics, sys, threading, time, urllib.parse
base, token, phone_token, phone_id, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
host = urllib.parse.urlparse(base)
def connection(): return http.client.HTTPConnection(host.hostname, host.port, timeout=60)
def request(c, method, path, token, body=None, headers=None):
    h = {"Authorization": "Bearer " + token}
    h.update(headers or {})
    c.request(method, path, body=body, headers=h)
    r = c.getresponse(); data = r.read()
    if r.status >= 300: raise SystemExit("%s %s: %d %s" % (method, path, r.status, data[:200]))
    return r, data
payload = b"x" * 1024
lock = threading.Lock(); left = [count]
def worker():
    c = connection()
    while True:
        with lock:
            if left[0] == 0: return
            left[0] -= 1
        r, _ = request(c, "POST", "/v1/uploads", token, headers={"Tus-Resumable": "1.0.0", "Upload-Length": str(len(payload))})
        location = r.getheader("Location")
        request(c, "PATCH", location, token, payload, {"Tus-Resumable": "1.0.0", "Upload-Offset": "0",
                                                      "Content-Type": "application/offset+octet-stream"})
        _, data = request(c, "POST", "/v1/transfers", token, json.dumps({"upload": location.rsplit("/", 1)[1], "devices": [phone_id]}),
                          {"Content-Type": "application/json"})
        request(c, "POST", "/v1/transfers/%s/ack" % json.loads(data)["id"], phone_token)
start = time.monotonic()
threads = [threading.Thread(target=worker) for _ in range(16)]
for t in threads: t.start()
for t in threads: t.join()
tps = count / (time.monotonic() - start)
c = connection(); times = []
for _ in range(300):
    t = time.monotonic(); request(c, "GET", "/v1/inbox", phone_token); times.append(time.monotonic() - t)
print("%.0f %.2f" % (tps, statistics.median(times) * 1000))
PY
)
  printf '  %-34s %12s %10s %12s %12s\n' "$label" "$rps" "$p99" "$tps" "$latency ms"
  LAST_LATENCY=$latency
}

echo "vfs-relay $("$BIN/vfs-relay" --version 2>/dev/null || true), PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on a unix socket; $(nproc) cores, shared: figures are noisy"
echo "GET /v1/items ($ITEMS items, wrk 2 threads, 32 connections, ${WRK_SECONDS}s); $TRANSFERS transfers of 1 KiB by 16 clients; GET /v1/inbox one at a time:"
printf '  %-34s %12s %10s %12s %12s\n' "" "policy req/s" "p99" "transfers/s" "median req"

# 1. One relay on SQLite.
start_relay sqlite --data "$BENCH_DIR/sqlite"
setup "http://127.0.0.1:$PORT" --data "$BENCH_DIR/sqlite"
measure "one relay, SQLite" "http://127.0.0.1:$PORT"
sqlite_latency=$LAST_LATENCY

# 2. One relay on PostgreSQL.
blobs="$BENCH_DIR/blobs"
start_relay pg-a --data "$BENCH_DIR/a" --database "$url" --blobs "$blobs"
a_port=$PORT a_pid=${BENCH_PIDS[-1]}
setup "http://127.0.0.1:$a_port" --database "$url" --blobs "$blobs"
measure "one relay, PostgreSQL" "http://127.0.0.1:$a_port"
pg_latency=$LAST_LATENCY

# 3. Two relays on PostgreSQL behind nginx (round robin).
start_relay pg-b --data "$BENCH_DIR/b" --database "$url" --blobs "$blobs"
b_port=$PORT b_pid=${BENCH_PIDS[-1]}
nport=$(free_port)
mkdir -p "$BENCH_DIR/nginx"
cat > "$BENCH_DIR/nginx/nginx.conf" <<CONF
daemon off;
user $(id -un);
worker_processes 2;
pid $BENCH_DIR/nginx/nginx.pid;
error_log $BENCH_DIR/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $BENCH_DIR/nginx/body;
  proxy_temp_path $BENCH_DIR/nginx/proxy;
  fastcgi_temp_path $BENCH_DIR/nginx/fastcgi;
  uwsgi_temp_path $BENCH_DIR/nginx/uwsgi;
  scgi_temp_path $BENCH_DIR/nginx/scgi;
  upstream vfs_relay { server 127.0.0.1:$a_port; server 127.0.0.1:$b_port; keepalive 32; }
  server {
    listen 127.0.0.1:$nport;
    client_max_body_size 0;
    proxy_request_buffering off;
    proxy_buffering off;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    location / { proxy_pass http://vfs_relay; }
  }
}
CONF
bench_spawn nginx -c "$BENCH_DIR/nginx/nginx.conf" -p "$BENCH_DIR/nginx" -e "$BENCH_DIR/nginx/error.log"
wait_port "$nport"
measure "two relays, PostgreSQL, nginx" "http://127.0.0.1:$nport"

printf '  %-34s %8s ms per request (median GET /v1/inbox: %s ms on PostgreSQL, %s ms on SQLite)\n' "PostgreSQL adds" \
  "$(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) - float(sys.argv[2])))' "$pg_latency" "$sqlite_latency")" "$pg_latency" "$sqlite_latency"

# 4. An event stored through A reaching a stream on B (median of 20).
python3 - "$a_port" "$b_port" "$TOKEN" <<'PY'
import json, socket, statistics, sys, time, urllib.request
a, b, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.create_connection(("127.0.0.1", b), 30)
s.sendall(("GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n" % token).encode())
buffer = b""
while b"retry:" not in buffer: buffer += s.recv(4096)
times = []
for i in range(20):
    buffer = b""
    body = json.dumps({"name": "bench-%d" % i}).encode()
    request = urllib.request.Request("http://127.0.0.1:%d/v1/groups" % a, data=body, method="POST",
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    start = time.monotonic()
    urllib.request.urlopen(request).read()
    while b"event: group" not in buffer: buffer += s.recv(4096)
    times.append(time.monotonic() - start)
print("  %-34s %8.1f ms (median of 20; POST on A until the event arrives on B)" % ("event across instances", statistics.median(times) * 1000))
PY

# 5. SIZE pushed through relay A (tus create, one streamed PATCH, the transfer made: the
# relay's digest, and with S3 its CompleteMultipartUpload and copy) and fetched through
# relay B, blobs in the shared folder, then in a RADOS Gateway bucket.
rss_peak() { awk '/^VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
now() { date +%s.%N; }
since() { python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$1" "$2"; }
big="$BENCH_DIR/big.bin"
head -c "$SIZE" /dev/urandom > "$big"
bytes=$(stat -c %s "$big")
echo "$SIZE ($bytes bytes) pushed through relay A, fetched through relay B (both on PostgreSQL):"
printf '  %-34s %12s %12s %14s %14s\n' "" "push" "fetch" "A peak RSS" "B peak RSS"
# push_fetch LABEL A_PORT A_PID B_PORT B_PID (TOKEN, PHONE_TOKEN, PHONE_ID from setup)
push_fetch() {
  local label=$1 a=$2 apid=$3 b=$4 bpid=$5 location upload transfer t0 t1 t2
  echo 5 > "/proc/$apid/clear_refs"; echo 5 > "/proc/$bpid/clear_refs"
  t0=$(now)
  location=$(curl -sSf -D - -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H "Tus-Resumable: 1.0.0" \
    -H "Upload-Length: $bytes" "http://127.0.0.1:$a/v1/uploads" | tr -d '\r' | awk 'tolower($1) == "location:" {print $2}')
  location=${location#http*://*/}; location=/${location#/}
  curl -sSf -o /dev/null -X PATCH -H "Authorization: Bearer $TOKEN" -H "Tus-Resumable: 1.0.0" -H "Upload-Offset: 0" \
    -H "Content-Type: application/offset+octet-stream" -T "$big" "http://127.0.0.1:$a$location"
  upload=${location##*/}
  transfer=$(curl -sSf -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
    -d "{\"upload\":\"$upload\",\"devices\":[\"$PHONE_ID\"]}" "http://127.0.0.1:$a/v1/transfers" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
  t1=$(now)
  curl -sSf -H "Authorization: Bearer $PHONE_TOKEN" "http://127.0.0.1:$b/v1/transfers/$transfer/content" | cmp - "$big"
  t2=$(now)
  printf '  %-34s %12s %12s %10s MiB %10s MiB\n' "$label" "$(mbps "$bytes" "$(since "$t0" "$t1")")" \
    "$(mbps "$bytes" "$(since "$t1" "$t2")")" "$(rss_peak "$apid")" "$(rss_peak "$bpid")"
}
push_fetch "two relays, blobs in a folder" "$a_port" "$a_pid" "$b_port" "$b_pid"

fixture="$(cd "$(dirname "$0")/.." && pwd)/Tests/tools/rgw-fixture.sh"
if ! command -v radosgw >/dev/null; then
  echo "  two relays, blobs in RGW: skipped (radosgw is not installed; make deps installs it)"
  exit 0
fi
rgw_env=$("$fixture" start "$BENCH_DIR")
eval "$rgw_env"
bench_on_exit "\"$fixture\" stop \"$RGW_FIXTURE_DIR\" >/dev/null 2>&1"
"$fixture" bucket "$RGW_FIXTURE_DIR" vfs-bench >/dev/null
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_ACCESS_KEY" "$S3_SECRET_KEY" > "$BENCH_DIR/s3-credentials"
(cd / && "${as_pg[@]}" "$PGBIN/createdb" -h "$pg" -U relay relay_s3)
s3=(--database "postgres://relay@/relay_s3?host=$pg" --blobs "s3://vfs-bench/relay?endpoint=$S3_ENDPOINT&region=$S3_REGION"
    --s3-credentials "$BENCH_DIR/s3-credentials")
start_relay s3-a --data "$BENCH_DIR/s3a" "${s3[@]}"
s3a_port=$PORT s3a_pid=${BENCH_PIDS[-1]}
start_relay s3-b --data "$BENCH_DIR/s3b" "${s3[@]}"
s3b_port=$PORT s3b_pid=${BENCH_PIDS[-1]}
ITEMS=0 setup "http://127.0.0.1:$s3a_port" "${s3[@]}"
push_fetch "two relays, blobs in RGW (memstore)" "$s3a_port" "$s3a_pid" "$s3b_port" "$s3b_pid"
