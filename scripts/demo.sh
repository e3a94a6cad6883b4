#!/usr/bin/env bash
# make demo: the toolkit's main job end to end, in a throwaway VFS_HOME.
set -euo pipefail
BIN=${VFS_BIN:?VFS_BIN is the folder of the built tools}
export PATH="$BIN:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export VFS_HOME="$work/home"
step() { printf '\n==> %s\n' "$*"; }

step "make an identity (vfs-keygen)"
vfs-keygen -o "$work/key.txt"
recipient=$(vfs-keygen -y "$work/key.txt")
echo "recipient: $recipient"

step "encrypt a sample file to it (vfs-encrypt)"
sample="$work/report.txt"
{ echo "quarterly numbers: 42, 17, 99"; seq 1 20000; } > "$sample"
vfs-encrypt -r "$recipient" -o "$work/report.txt.age" "$sample"
printf '%s: %s bytes -> %s bytes, starts with: %s\n' "$(basename "$sample")" "$(wc -c <"$sample")" \
  "$(wc -c <"$work/report.txt.age")" "$(head -1 "$work/report.txt.age")"

step "age reads what vfs wrote"
if command -v age >/dev/null; then age -d -i "$work/key.txt" -o "$work/by-age.txt" "$work/report.txt.age"; echo "age -d: $(head -1 "$work/by-age.txt")"; fi

step "decrypt it again (vfs-decrypt) and compare"
vfs-decrypt -i "$work/key.txt" -o "$work/report.out" "$work/report.txt.age"
cmp "$sample" "$work/report.out" && echo "round trip: identical"

step "a tampered file is refused, and no output file appears"
cp "$work/report.txt.age" "$work/tampered.age"
printf 'X' | dd of="$work/tampered.age" bs=1 seek=300 conv=notrunc status=none
if vfs-decrypt -i "$work/key.txt" -o "$work/tampered.out" "$work/tampered.age"; then
  echo "unexpected: tampered file decrypted"; exit 1
else
  echo "exit status $? ; output file present: $([ -e "$work/tampered.out" ] && echo yes || echo no)"
fi
echo
echo "demo finished"
