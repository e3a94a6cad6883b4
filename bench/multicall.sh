#!/usr/bin/env bash
# One binary per tool (what make build makes) against one multi-call binary whose tool
# names are links to it (busybox's way): size on disk, start-up (--version) and link time.
# The multi-call binary is linked in the bench's temp folder from the build's own object
# files (the union of every tool's link list, each tool's entry point vfs_NAME_main kept)
# plus a small C main that dispatches on the name it was called by. BIN: the release
# build (static, as make build links it). RUNS (default 20) runs per command; TOOLS (default:
# every tool of Package.swift) a subset.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need hyperfine; need python3; need cc
RUNS=${RUNS:-20}
export RUNS
tools=${TOOLS:-$(sed -n 's/^ *("\(vfs-[a-z0-9-]*\)",.*/\1/p' Package.swift)}
yaml="${YAML:-$(dirname "$BIN")/$(basename "$BIN").yaml}"
[ -f "$yaml" ] || { echo "no $yaml: build first"; exit 1; }
multi="$BENCH_DIR/multi" single="$BENCH_DIR/single"
mkdir -p "$multi" "$single"

# The dispatcher: argv[0]'s base name picks the entry point.
{
  echo '#include <stdio.h>'; echo '#include <string.h>'
  for t in $tools; do echo "int ${t//-/_}_main(int, char **);"; done
  echo 'int main(int argc, char **argv) {'
  echo '  const char *name = strrchr(argv[0], 0x2f); name = name ? name + 1 : argv[0];'
  for t in $tools; do echo "  if (strcmp(name, \"$t\") == 0) return ${t//-/_}_main(argc, argv);"; done
  echo '  fprintf(stderr, "vfs: error: called as \"%s\": no such tool\n", name); return 64;'
  echo '}'
} > "$BENCH_DIR/dispatch.c"
cc -O2 -c "$BENCH_DIR/dispatch.c" -o "$BENCH_DIR/dispatch.o"

python3 - "$yaml" "$BENCH_DIR" "$multi/vfs" $tools > "$BENCH_DIR/link.json" <<'PY'
import json, re, shlex, sys
yaml, work, out, tools = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
text = open(yaml).read()
objects, flags = [], []
for tool in tools:
    m = re.search(r'"C\.%s-[^"]*\.exe":\n(?:    .*\n)*?    args: (\[.*\])\n' % re.escape(tool), text)
    if not m: sys.exit("no link command for %s" % tool)
    args = json.loads(m.group(1))
    driver = args[0]
    i = 1
    while i < len(args):
        a = args[i]
        if a == "-o" or a == "-module-name": i += 2; continue
        if a == "-Xlinker" and i + 3 < len(args) and args[i + 1] == "--defsym": i += 4; continue
        if a.startswith("@"):
            for line in open(a[1:]).read().split("\n"):
                line = line.strip().strip('"').strip("'")
                if line and line not in objects: objects.append(line)
        elif a == "-L" or a == "-target" or a == "-Xlinker":
            pair = [a, args[i + 1]]
            if a == "-Xlinker" or pair not in [flags[j:j + 2] for j in range(len(flags) - 1)]: flags += pair
            i += 2; continue
        elif a not in flags:
            flags.append(a)
        i += 1
with open(work + "/objects.list", "w") as f:
    # Quoted: some object names hold spaces ("Unmanaged extensions.swift.o").
    f.write("\n".join('"%s"' % o for o in objects + [work + "/dispatch.o"]) + "\n")
print(json.dumps([driver] + flags + ["-o", out, "-module-name", "vfs_multicall", "@" + work + "/objects.list"]))
PY
start=$(now)
python3 -c 'import json,subprocess,sys; sys.exit(subprocess.call(json.load(open(sys.argv[1]))))' "$BENCH_DIR/link.json" 2>"$BENCH_DIR/link.err" \
  || { echo "the multi-call link failed: $(head -n 5 "$BENCH_DIR/link.err")"; exit 1; }
link_multi=$(elapsed "$start" "$(now)")
strip "$multi/vfs"
for t in $tools; do ln -s vfs "$multi/$t"; strip -o "$single/$t" "$BIN/$t"; done
for t in $tools; do
  [ "$("$multi/$t" --version)" = "$("$single/$t" --version)" ] || { echo "$t: the multi-call binary answers --version differently"; exit 1; }
done
"$multi/vfs-policy" --help | grep vfs-policy >/dev/null || { echo "the multi-call binary does not dispatch vfs-policy"; exit 1; }
# One tool's link, timed the same way (relinking vfs-policy into the temp folder).
python3 - "$yaml" "$BENCH_DIR/one" > "$BENCH_DIR/one.json" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
m = re.search(r'"C\.vfs-policy-[^"]*\.exe":\n(?:    .*\n)*?    args: (\[.*\])\n', text)
args = json.loads(m.group(1)); args[args.index("-o") + 1] = sys.argv[2]; print(json.dumps(args))
PY
start=$(now)
python3 -c 'import json,subprocess,sys; sys.exit(subprocess.call(json.load(open(sys.argv[1]))))' "$BENCH_DIR/one.json" 2>/dev/null
link_one=$(elapsed "$start" "$(now)")

sum=$(du -cb "$single"/* | tail -n 1 | cut -f1)
mib() { python3 -c 'import sys; print("%.1f MiB" % (int(sys.argv[1]) / 1048576))' "$1"; }
ntools=$(echo $tools | wc -w)
echo "one binary per tool: $ntools binaries, $(mib "$sum") stripped in all; one link (vfs-policy) ${link_one}s, so about $(python3 -c "print('%.0f' % ($link_one * $ntools))")s for all"
echo "one multi-call binary: $(mib "$(stat -c %s "$multi/vfs")") stripped; its link ${link_multi}s"
# Mean wall and CPU (user + system) ms: on a busy machine the CPU time is the steadier figure.
wall_cpu() {
  hyperfine -N --style none --warmup 3 --runs "$RUNS" --export-json "$BENCH_DIR/hf-mc.json" "$1" >/dev/null 2>&1 || { echo "nan nan"; return; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.1f %.1f" % (r["mean"]*1000, (r["user"]+r["system"])*1000))' "$BENCH_DIR/hf-mc.json"
}
printf '%-14s %10s %10s %7s | %10s %10s %7s\n' "--version" "tool ms" "multi ms" ratio "tool cpu" "multi cpu" ratio
for t in $tools; do
  read -r sw sc < <(wall_cpu "$single/$t --version"); read -r mw mc < <(wall_cpu "$multi/$t --version")
  printf '%-14s %10s %10s %7s | %10s %10s %7s\n' "$t" "$sw" "$mw" "$(ratio "$mw" "$sw")" "$sc" "$mc" "$(ratio "$mc" "$sc")"
done
