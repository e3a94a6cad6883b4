# Shared by the bench scripts (sourced, not run).
BIN=${BIN:-.build/release}
BIN=$(cd "$BIN" && pwd)
BENCH_DIR=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/vfs-bench.XXXXXX")}
trap 'rm -rf "$BENCH_DIR"' EXIT
need() { command -v "$1" >/dev/null || { echo "skipped: $1 is not installed (make deps installs it)"; exit 0; }; }

# Mean seconds of a command over RUNS runs (hyperfine), printed as a number.
mean_seconds() {
  local json="$BENCH_DIR/hf.json"
  hyperfine --style none --warmup 1 --runs "${RUNS:-5}" --export-json "$json" "$1" >/dev/null 2>&1 || { echo "nan"; return; }
  python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["mean"])' "$json"
}

# Peak resident memory in MiB of one run.
peak_mib() {
  /usr/bin/time -f '%M' bash -c "$1" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'
}

ratio() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print("%.2fx" % (a/b) if b>0 else "n/a")' "$1" "$2"; }
mbps() { python3 -c 'import sys; print("%.0f MB/s" % (float(sys.argv[1])/float(sys.argv[2])/1e6))' "$1" "$2"; }
