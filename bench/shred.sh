#!/usr/bin/env bash
# vfs-shred against GNU shred (one big file) and srm (a tree of many small files), in one run.
# BENCH_SHRED_MB (default 1024) sets the file size; BENCH_SHRED_FILES (default 5000) the
# number of files in the tree; RUNS (default 3) the runs per command. Every timed run gets
# fresh input: hyperfine's --prepare copies a master copy into place and syncs it.
#
# srm (secure-delete) overwrites 38 times by default; it is timed in its fastest mode that
# still writes random data once: `srm -r -l -l` (-l -l: "only one random pass"), with its
# default O_SYNC writes and sync calls. GNU shred has no tree mode, so it is timed on the tree
# as `find -type f -exec shred -n1 -u {} +` followed by `rm -r` of the emptied folders.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need hyperfine; need shred; need srm
MB=${BENCH_SHRED_MB:-1024}
FILES=${BENCH_SHRED_FILES:-5000}
RUNS=${RUNS:-3}
VFS="$BIN/vfs-shred"

row() { printf '%-34s %9s %12s %9s MiB %9s\n' "$1" "$2" "$3" "$4" "$5"; }
tree_row() { printf '%-34s %9s %12s %9s MiB %9s %9s\n' "$1" "$2" "$3" "$4" "$5" "$6"; }

# --- one big file ---------------------------------------------------------------------
master="$BENCH_DIR/master.bin"
head -c $((MB * 1024 * 1024)) /dev/urandom > "$master"
file="$BENCH_DIR/victim.bin"
prep_file="cp '$master' '$file' && sync"
bytes=$((MB * 1024 * 1024))
echo "one file: $MB MiB of random data, fresh synced copy before each run, mean of $RUNS runs, $(nproc) cores"
printf '%-34s %9s %12s %13s %9s\n' command seconds throughput "peak RSS" "vs shred"
for n in 1 3; do
  g=$(mean_seconds --prepare "$prep_file" "shred -n$n -u '$file'")
  v=$(mean_seconds --prepare "$prep_file" "'$VFS' -n $n '$file'")
  gm=$(peak_mib --prepare "$prep_file" "shred -n$n -u '$file'")
  vm=$(peak_mib --prepare "$prep_file" "'$VFS' -n $n '$file'")
  row "shred -n$n -u" "$g" "$(mbps $((bytes * n)) "$g")" "$gm" "1.00x"
  row "vfs-shred -n $n" "$v" "$(mbps $((bytes * n)) "$v")" "$vm" "$(ratio "$g" "$v")"
done
rm -f "$master" "$file"

# --- a tree of many small files -------------------------------------------------------
tree="$BENCH_DIR/tree.master"
python3 - "$tree" "$FILES" <<'EOF'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
per = 100
for i in range(count):
    folder = os.path.join(root, "batch-%04d" % (i // per))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "export-%06d.csv" % i), "wb") as f:
        f.write(os.urandom(1024 + (i * 7919) % (15 * 1024)))
EOF
kib=$(du -sk "$tree" | cut -f1)
victim="$BENCH_DIR/tree"
prep_tree="rm -rf '$victim' && cp -a '$tree' '$victim' && sync"
echo
echo "tree: $FILES files of 1-16 KiB in $(( (FILES + 99) / 100 )) folders ($((kib / 1024)) MiB on disk), fresh synced copy before each run, mean of $RUNS runs"
printf '%-34s %9s %12s %13s %9s %9s\n' command seconds files/s "peak RSS" "vs srm" "vs shred"
s=$(mean_seconds --prepare "$prep_tree" "srm -r -l -l '$victim'")
g=$(mean_seconds --prepare "$prep_tree" "find '$victim' -type f -exec shred -n1 -u {} + && rm -r '$victim'")
v=$(mean_seconds --prepare "$prep_tree" "'$VFS' -r '$victim'")
sm=$(peak_mib --prepare "$prep_tree" "srm -r -l -l '$victim'")
gm=$(peak_mib --prepare "$prep_tree" "find '$victim' -type f -exec shred -n1 -u {} + && rm -r '$victim'")
vm=$(peak_mib --prepare "$prep_tree" "'$VFS' -r '$victim'")
tree_row "srm -r -l -l" "$s" "$(fps "$FILES" "$s")" "$sm" "1.00x" "$(ratio "$g" "$s")"
tree_row "shred -n1 -u (find) + rm -r" "$g" "$(fps "$FILES" "$g")" "$gm" "$(ratio "$s" "$g")" "1.00x"
tree_row "vfs-shred -r" "$v" "$(fps "$FILES" "$v")" "$vm" "$(ratio "$s" "$v")" "$(ratio "$g" "$v")"
[ -e "$victim" ] && echo "warning: the tree was not removed" || true
