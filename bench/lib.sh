# Shared by the bench scripts (sourced, not run).
BIN=${BIN:-.build/release}
BIN=$(cd "$BIN" && pwd)
BENCH_DIR=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/vfs-bench.XXXXXX")}
need() { command -v "$1" >/dev/null || { echo "skipped: $1 is not installed (make deps installs it)"; exit 0; }; }

# mean_seconds [--prepare PREP] CMD: the mean seconds of CMD over RUNS runs (hyperfine),
# printed as a number ("nan" if it failed). With --prepare, PREP runs before every run
# (fresh input for a destructive command) and there is no warm-up run.
mean_seconds() {
  local json="$BENCH_DIR/hf.json" setup=(--warmup 1)
  if [ "$1" = --prepare ]; then setup=(--prepare "$2"); shift 2; fi
  hyperfine --style none "${setup[@]}" --runs "${RUNS:-5}" --export-json "$json" "$1" >/dev/null 2>&1 || { echo "nan"; return; }
  python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["mean"])' "$json"
}

# peak_mib [--prepare PREP] CMD: the peak resident memory in MiB of one run of CMD
# (after PREP, not measured).
peak_mib() {
  if [ "$1" = --prepare ]; then bash -c "$2" >/dev/null 2>&1; shift 2; fi
  /usr/bin/time -f '%M' bash -c "$1" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'
}

ratio() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print("%.2fx" % (a/b) if b>0 else "n/a")' "$1" "$2"; }
mbps() { python3 -c 'import sys; s = float(sys.argv[2]); print("%.0f MB/s" % (float(sys.argv[1]) / s / 1e6) if s > 0 else "-")' "$1" "$2"; }
# fps COUNT SECONDS: files (or any items) per second.
fps() { python3 -c 'import sys; print("%.0f" % (float(sys.argv[1])/float(sys.argv[2])))' "$1" "$2"; }

# Servers a bench starts: bench_spawn CMD… runs one in the background and records its
# pid; on exit (whatever happens) every one is stopped, every command given to
# bench_on_exit runs (an agent to lock, say), and BENCH_DIR is removed.
BENCH_PIDS=()
BENCH_EXIT_HOOKS=()
bench_spawn() { "$@" & BENCH_PIDS+=("$!"); }
bench_on_exit() { BENCH_EXIT_HOOKS+=("$1"); }
bench_stop() {
  local pid hook
  for hook in "${BENCH_EXIT_HOOKS[@]}"; do eval "$hook" || true; done
  for pid in "${BENCH_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${BENCH_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$BENCH_DIR"
}
trap bench_stop EXIT
trap 'exit 130' INT TERM

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits up to 30 s for a TCP port on 127.0.0.1 to accept connections.
wait_port() {
  python3 - "$1" <<'PY'
import socket, sys, time
for _ in range(300):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2).close(); sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit("port %s did not open" % sys.argv[1])
PY
}

# nginx on a free loopback port serving ROOT for GET, with WebDAV PUT under ROOT/up/
# (the no-crypto floor for uploads and downloads). Sets NGINX_URL (http://127.0.0.1:PORT).
# Its workers run as this user (nginx only switches users when started as root), so they
# read and write the bench's private folder; stopped by bench_stop.
start_nginx() {
  local root=$1 conf="$BENCH_DIR/nginx" port
  port=$(free_port)
  mkdir -p "$conf" "$root/up"
  cat > "$conf/nginx.conf" <<CONF
daemon off;
user $(id -un);
worker_processes 1;
pid $conf/nginx.pid;
error_log $conf/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $conf/body;
  proxy_temp_path $conf/proxy;
  fastcgi_temp_path $conf/fastcgi;
  uwsgi_temp_path $conf/uwsgi;
  scgi_temp_path $conf/scgi;
  sendfile on;
  server {
    listen 127.0.0.1:$port;
    root $root;
    client_max_body_size 0;
    location /up/ { dav_methods PUT; create_full_put_path on; }
  }
}
CONF
  bench_spawn nginx -c "$conf/nginx.conf" -p "$conf" -e "$conf/error.log"
  wait_port "$port"
  NGINX_URL="http://127.0.0.1:$port"
}

# Seconds between two `date +%s.%N` stamps, and now.
now() { date +%s.%N; }
elapsed() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$1" "$2"; }

# approve_devices FIRST OTHER…: FIRST, the user's first device (it started their device
# chain), approves each OTHER with its fingerprint, so pushes between them verify. Runs
# the tools through the caller's `on DEVICE TOOL ARGS…`.
approve_devices() {
  local first=$1 who; shift
  for who in "$@"; do
    on "$first" vfs-device approve "$who" --fingerprint "$(on "$who" vfs-device fingerprint)" >/dev/null 2>"$BENCH_DIR/approve.log" \
      || { echo "approving $who failed: $(cat "$BENCH_DIR/approve.log")"; exit 1; }
  done
}
