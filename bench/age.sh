#!/usr/bin/env bash
# vfs-encrypt / vfs-decrypt against age on the same input, in one run.
# BENCH_MB (default 1024) sets the input size; RUNS (default 5) the runs per command.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need age; need hyperfine
MB=${BENCH_MB:-1024}
in="$BENCH_DIR/in.bin"
head -c $((MB * 1024 * 1024)) /dev/urandom > "$in"
age-keygen -o "$BENCH_DIR/key.txt" 2>/dev/null
r=$(age-keygen -y "$BENCH_DIR/key.txt")
age -r "$r" -o "$BENCH_DIR/age.age" "$in"
"$BIN/vfs-encrypt" -r "$r" -o "$BENCH_DIR/vfs.age" "$in"
bytes=$((MB * 1024 * 1024))
echo "input: $MB MiB of random data, $(nproc) cores; output to /dev/null; mean of ${RUNS:-5} runs"
printf '%-10s %10s %12s %12s %10s %10s\n' direction tool seconds throughput "peak RSS" "vs age"
for dir in encrypt decrypt; do
  if [ $dir = encrypt ]; then
    vcmd="$BIN/vfs-encrypt -r $r -o /dev/null $in"; acmd="age -r $r -o /dev/null $in"
  else
    vcmd="$BIN/vfs-decrypt -i $BENCH_DIR/key.txt -o /dev/null $BENCH_DIR/age.age"; acmd="age -d -i $BENCH_DIR/key.txt -o /dev/null $BENCH_DIR/age.age"
  fi
  a=$(mean_seconds "$acmd"); v=$(mean_seconds "$vcmd")
  am=$(peak_mib "$acmd"); vm=$(peak_mib "$vcmd")
  printf '%-10s %10s %12s %12s %9s MiB %10s\n' $dir age "$a" "$(mbps $bytes $a)" "$am" "1.00x"
  printf '%-10s %10s %12s %12s %9s MiB %10s\n' $dir vfs "$v" "$(mbps $bytes $v)" "$vm" "$(ratio $a $v)"
done
