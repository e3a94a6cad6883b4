#!/usr/bin/env bash
# make demo: the toolkit's local job end to end on a sample folder, in a throwaway
# VFS_HOME: a keychain with an identity, a group, a policy that approves one app, a
# bundle wrapped for the group, an unwrap refused for an unapproved app and allowed for
# the approved one, then the originals shredded. One line per step.
set -euo pipefail
BIN=${VFS_BIN:?VFS_BIN is the folder of the built tools}
export PATH="$BIN:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export VFS_HOME="$work/home" VFS_KEYCHAIN="$work/home/keychain" VFS_POLICY="$work/home/policy.json"
cd "$work"
n=0
step() { n=$((n + 1)); printf '%2d. %s\n' "$n" "$*"; }
pass="$work/passcode"                         # the demo's passcode; a person types it instead
echo "demo passcode $$" > "$pass"

mkdir sample
{ echo "quarterly numbers: 42, 17, 99"; seq 1 2000; } > sample/report.txt
printf 'region,total\nnorth,42\nsouth,17\n' > sample/figures.csv
echo "draft, do not send" > sample/notes.txt
step "sample folder: $(find sample -type f | wc -l) files, $(du -sk sample | cut -f1) KiB in $work/sample"

vfs-keychain init --work-factor 14 --passcode-file "$pass" 2>/dev/null
me=$(vfs-keychain identity new laptop --passcode-file "$pass")
step "keychain: created $VFS_KEYCHAIN with the identity \"laptop\" ($me)"

mkdir -p "$VFS_HOME/groups"
vfs-keygen -o backup-key.txt 2>/dev/null
{ echo "$me"; vfs-keygen -y backup-key.txt; } > "$VFS_HOME/groups/finance"
step "group \"finance\": the laptop and a backup key file (vfs-keygen), in $VFS_HOME/groups/finance"

id=$(vfs-policy add com.example.viewer --name "Example Viewer" --group finance --type txt --type csv --expires 30d)
step "policy: com.example.viewer may open finance's txt and csv files for 30 days (item $id)"

vfs-wrap -q -g finance -K laptop --passcode-file "$pass" --access-id viewer -o q3.vfs sample
step "wrapped sample/ for finance: q3.vfs, $(wc -c < q3.vfs) bytes, starts \"$(head -c 21 q3.vfs)\""

listing=$(vfs-unwrap -K laptop --passcode-file "$pass" --list q3.vfs)
step "its manifest (vfs-unwrap --list): group $(sed -n 's/^# group: //p' <<<"$listing"), $(grep -c '^-' <<<"$listing") files and $(grep -c '^d' <<<"$listing") folder, sender ${me:0:16}…"

mkdir inbox
if vfs-unwrap -K laptop --passcode-file "$pass" --for evince -C inbox q3.vfs 2>err.txt; then
  echo "unexpected: evince was allowed"; exit 1
else
  status=$?
  step "unwrap for evince refused (exit $status: $(sed -n 's/^vfs-unwrap: error: //p' err.txt)); inbox/ holds $(ls -A inbox | wc -l) files"
fi

vfs-unwrap -K laptop --passcode-file "$pass" --for com.example.viewer -C inbox q3.vfs
diff -r sample inbox/sample >/dev/null
step "unwrap for com.example.viewer allowed: inbox/sample/ has $(find inbox/sample -type f | wc -l) files, identical to the originals"

if command -v age >/dev/null && command -v bsdtar >/dev/null; then
  step "standard tools open it with the backup key: age -d | bsdtar -t lists $(age -d -i backup-key.txt q3.vfs | bsdtar -tf - | wc -l) entries"
fi

vfs-shred -q -r sample q3.vfs
step "originals shredded: sample/ and q3.vfs $( [ -e sample ] || [ -e q3.vfs ] && echo "still exist" || echo "are gone")"

echo "x" | vfs-encrypt -K laptop --passcode-file "$pass" -o x.age
printf 'X' | dd of=x.age bs=1 seek=200 conv=notrunc status=none
if vfs-decrypt -K laptop --passcode-file "$pass" -o x.out x.age 2>/dev/null; then echo "unexpected: tampered file decrypted"; exit 1; fi
step "plain age files too: vfs-encrypt/vfs-decrypt; a tampered one is refused, no output file ($([ -e x.out ] && echo present || echo none))"
echo "demo finished"
