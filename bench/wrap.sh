#!/usr/bin/env bash
# vfs-wrap / vfs-unwrap against `bsdtar -c --zstd | age -r` and `age -d | bsdtar -x`,
# on the same inputs in one run: a tree of many small files (a copy of BENCH_TREE,
# default /usr/share/doc) and one large random file of BENCH_WRAP_MB MiB (default 512).
# RUNS (default 5) sets the runs per command.
# Note: `bsdtar -c --zstd -f -` pads its last block with zeros after the zstd frame, and
# `bsdtar -x` then fails reading that stream from a pipe ("Unknown frame descriptor");
# so the peer's file for the unwrap timing is made with `bsdtar -c | zstd | age` (a clean
# frame), while the wrap timing runs `bsdtar -c --zstd | age` as is.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need age; need bsdtar; need zstd; need hyperfine
MB=${BENCH_WRAP_MB:-512}
TREE=${BENCH_TREE:-/usr/share/doc}
age-keygen -o "$BENCH_DIR/key.txt" 2>/dev/null
r=$(age-keygen -y "$BENCH_DIR/key.txt")
key="$BENCH_DIR/key.txt"

mkdir -p "$BENCH_DIR/tree" "$BENCH_DIR/large"
cp -a "$TREE" "$BENCH_DIR/tree/doc"
head -c $((MB * 1024 * 1024)) /dev/urandom > "$BENCH_DIR/large/big.bin"
files=$(find "$BENCH_DIR/tree/doc" | wc -l)
tree_bytes=$(du -sb "$BENCH_DIR/tree/doc" | cut -f1)
echo "inputs: $TREE copied ($files entries, $((tree_bytes / 1024 / 1024)) MiB) and one $MB MiB random file; $(nproc) cores; mean of ${RUNS:-5} runs"
printf '%-8s %-9s %-22s %10s %12s %11s %10s\n' input direction tool seconds throughput "peak RSS" "vs peer"
row() { printf '%-8s %-9s %-22s %10s %12s %7s MiB %10s\n' "$@"; }

for input in tree large; do
  src="$BENCH_DIR/$input"; name=$([ $input = tree ] && echo doc || echo big.bin)
  bytes=$([ $input = tree ] && echo "$tree_bytes" || echo $((MB * 1024 * 1024)))
  "$BIN/vfs-wrap" -q -r "$r" -o "$BENCH_DIR/$input.vfs" "$src/$name"
  bsdtar -c -f - -C "$src" "$name" | zstd -q | age -r "$r" -o "$BENCH_DIR/$input.age"
  out="$BENCH_DIR/out"
  for dir in wrap unwrap; do
    mkdir -p "$out"
    if [ $dir = wrap ]; then
      vcmd="$BIN/vfs-wrap -q -r $r -o /dev/null $src/$name"
      pcmd="bsdtar -c --zstd -f - -C $src $name | age -r $r -o /dev/null"
      plabel="bsdtar --zstd | age"
    else
      # Each run extracts into a folder of its own, removed only after both tools ran:
      # deleting inside the timed command would time rm -rf, and ext4 then slows the
      # next run's file creation while it skips the just-deleted inodes.
      vcmd="d=\$(mktemp -d -p $out) && $BIN/vfs-unwrap -q -i $key -C \$d $BENCH_DIR/$input.vfs"
      pcmd="d=\$(mktemp -d -p $out) && age -d -i $key $BENCH_DIR/$input.age | bsdtar -x -C \$d -f -"
      plabel="age -d | bsdtar -x"
    fi
    p=$(mean_seconds "$pcmd"); v=$(mean_seconds "$vcmd")
    pm=$(peak_mib "$pcmd"); vm=$(peak_mib "$vcmd")
    row $input $dir "$plabel" "$p" "$(mbps "$bytes" "$p")" "$pm" "1.00x"
    row $input $dir "vfs-$dir" "$v" "$(mbps "$bytes" "$v")" "$vm" "$(ratio "$p" "$v")"
    rm -rf "$out"
  done
done
echo "(vs peer > 1.00x: vfs is faster; peak RSS of the peer is its largest process)"
rm -rf "$BENCH_DIR/out"
