#!/usr/bin/env bash
# Start-up before and after static linking: every tool's --version, vfs-policy check on
# POLICY_ITEMS (1000) items against jq, and vfs-keychain get (agent unlocked) against
# pass show, each with the release build as make build links it (BIN: the Swift standard
# library and Foundation linked in, stripped as make install strips it) and relinked the
# old way (the toolchain's shared libraries). The dynamic copies are linked from the same
# object files with the link command SwiftPM recorded, less -static-stdlib, into the
# bench's temp folder (the build stays as it is). Also the binary sizes.
# RUNS (default 20) sets the runs per command.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need hyperfine; need jq; need python3
RUNS=${RUNS:-20}
export RUNS
tools=${TOOLS:-$(sed -n 's/^ *("\(vfs-[a-z0-9-]*\)",.*/\1/p' Package.swift)}
yaml="$(dirname "$BIN")/release.yaml"
[ -f "$yaml" ] || yaml="$(cd "$BIN/../.." && pwd)/release.yaml"
static="$BENCH_DIR/static" dynamic="$BENCH_DIR/dynamic" stubs="$BENCH_DIR/stubs"
mkdir -p "$static" "$dynamic" "$stubs"
# Objects compiled for the static Foundation name three libraries that the shared
# libFoundation.so holds inside: empty archives stand in for them in the dynamic link.
for l in CoreFoundation _FoundationCShims _FoundationCollections; do ar rc "$stubs/lib$l.a"; done
for t in $tools; do
  strip -o "$static/$t" "$BIN/$t"
  # The recorded link command, without -static-stdlib, writing into $dynamic.
  python3 - "$yaml" "$t" "$dynamic/$t" "$stubs" > "$BENCH_DIR/link.json" <<'PY'
import json, re, sys
yaml, tool, out, stubs = sys.argv[1:]
text = open(yaml).read()
m = re.search(r'"C\.%s-[^"]*\.exe":\n(?:    .*\n)*?    args: (\[.*\])\n' % re.escape(tool), text)
if not m: sys.exit("no link command for %s in %s" % (tool, yaml))
args = json.loads(m.group(1))
args = [a for a in args if a != "-static-stdlib"]
args[args.index("-o") + 1] = out
print(json.dumps(args + ["-L", stubs]))
PY
  python3 -c 'import json,subprocess,sys; sys.exit(subprocess.call(json.load(open(sys.argv[1]))))' "$BENCH_DIR/link.json" >/dev/null 2>"$BENCH_DIR/link.err" \
    || { echo "could not relink $t dynamically: $(head -n 3 "$BENCH_DIR/link.err")"; exit 1; }
  strip "$dynamic/$t"
done
ldd "$dynamic/vfs-policy" | grep -q libswiftCore || { echo "the dynamic copy does not load libswiftCore: nothing to compare"; exit 1; }
if ldd "$static/vfs-policy" | grep -q libswiftCore; then echo "BIN is not statically linked (make build links it): nothing to compare"; exit 1; fi

# Mean wall and CPU (user + system) milliseconds of a command: on a busy machine the CPU
# time is the steadier figure (the wall time includes waiting for a core).
wall_cpu() {
  local json="$BENCH_DIR/hf-startup.json"
  hyperfine -N --style none --warmup 3 --runs "$RUNS" --export-json "$json" "$1" >/dev/null 2>&1 || { echo "nan nan"; return; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.1f %.1f" % (r["mean"]*1000, (r["user"]+r["system"])*1000))' "$json"
}
mib() { python3 -c 'import os,sys; print("%.1f" % (os.path.getsize(sys.argv[1]) / 1048576))' "$1"; }
ms() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[1]) * 1000))' "$1"; }
echo "start-up (--version), stripped binaries; mean of $RUNS runs; $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-14s %8s %8s | %8s %8s %6s | %8s %8s %6s\n' tool "dyn MiB" static "dyn ms" static ratio "dyn cpu" static ratio
for t in $tools; do
  read -r dw dc < <(wall_cpu "$dynamic/$t --version"); read -r sw sc < <(wall_cpu "$static/$t --version")
  printf '%-14s %8s %8s | %8s %8s %6s | %8s %8s %6s\n' "$t" "$(mib "$dynamic/$t")" "$(mib "$static/$t")" "$dw" "$sw" "$(ratio "$sw" "$dw")" "$dc" "$sc" "$(ratio "$sc" "$dc")"
done
read -r jw jc < <(wall_cpu "jq --version")
printf '%-14s %8s %8s | %8s %8s %6s | %8s %8s\n' "jq (peer)" "" "" "" "$jw" "" "" "$jc"
echo
echo "policy check and keychain get, before (dynamic) and after (static):"
BIN="$dynamic" bash "$(dirname "$0")/policy.sh" | sed 's/^vfs-policy/dynamic vfs-policy/'
BIN="$static" bash "$(dirname "$0")/policy.sh" | sed 's/^vfs-policy/static  vfs-policy/'
BIN="$dynamic" BENCH_ENTRIES=${BENCH_ENTRIES:-1000} bash "$(dirname "$0")/keychain.sh" | sed 's/^vfs-keychain/dynamic vfs-keychain/'
BIN="$static" BENCH_ENTRIES=${BENCH_ENTRIES:-1000} bash "$(dirname "$0")/keychain.sh" | sed 's/^vfs-keychain/static  vfs-keychain/'
