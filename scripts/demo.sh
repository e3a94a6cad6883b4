#!/usr/bin/env bash
# make demo: the toolkit's local job end to end on a sample folder, in a throwaway
# VFS_HOME: a keychain with an identity, a group, a policy that approves one app, a
# bundle wrapped for the group, an unwrap refused for an unapproved app and allowed for
# the approved one, then the originals shredded. Then the relay: a local vfs-relay, three
# enrolled devices in a group, a folder pushed to the group, fetched with the policy gate
# on two, declined on the third, the outbox, a file sent to a colleague (bob) by address
# with the safety code compared on both sides, an admin's policy change reaching a
# watching device, a revoked device's watcher erasing its credentials, a cloud
# put/ls/get, the admin web page's address and a sign-in code, the relay stopped (kept
# running with KEEP=1). One line per step.
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

# The relay: a server on a free loopback port that stores ciphertext only, three of
# alice's machines (each its own VFS_HOME and keychain), a group, a pushed folder.
relay_data="$work/relay"
vfs-relay init --data "$relay_data" 2>/dev/null
vfs-relay org add acme --data "$relay_data" >/dev/null
code=$(vfs-relay user add alice@acme.example --org acme --admin --data "$relay_data" 2>/dev/null)
vfs-relay serve --listen 127.0.0.1:0 --data "$relay_data" >relay.out 2>relay.log &
relay_pid=$!
trap 'kill "$relay_pid" 2>/dev/null || true; kill "${watch_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 300); do grep -q listening relay.out 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^vfs-relay: listening on //p' relay.out)
step "relay: vfs-relay serve on $url (data in $relay_data), user alice@acme.example (an admin of acme)"

# on NAME CMD…: run a command as one of the machines.
on() { local who=$1; shift; VFS_HOME="$work/$who" VFS_KEYCHAIN="$work/$who/keychain" VFS_POLICY="$work/$who/policy.json" \
  VFS_PASSCODE="demo passcode $$" XDG_RUNTIME_DIR="$work/$who/run" "$@"; }
for who in laptop phone tablet; do
  mkdir -p "$work/$who/run" && chmod 700 "$work/$who/run"
  on "$who" vfs-keychain init --work-factor 14 --passcode-file "$pass" 2>/dev/null
  # the phone's code comes from the operator, the tablet's from the laptop (vfs-device invite)
  [ "$who" = phone ] && code=$(vfs-relay invite alice@acme.example --data "$relay_data" 2>/dev/null)
  [ "$who" = tablet ] && code=$(on laptop vfs-device invite 2>/dev/null)
  # a later device takes alice's chain, which it never saw, by a fingerprint of it (the laptop's)
  accept=(); [ "$who" != laptop ] && accept=(--accept-chain "$(on laptop vfs-device fingerprint)")
  on "$who" vfs-device enroll "$url" "$code" --name "$who" "${accept[@]}" >/dev/null 2>&1
done
step "the laptop, alice's first device, started her device chain; the phone and tablet are pending: $(on laptop vfs-device list --json 2>/dev/null | grep -c '"pending"') devices"
# The laptop approves each after comparing the fingerprint the device itself shows.
for who in phone tablet; do
  on laptop vfs-device approve "$who" --fingerprint "$(on "$who" vfs-device fingerprint)" 2>/dev/null
done
step "approved phone and tablet (fingerprint $(on phone vfs-device fingerprint) compared); pending now: $(on laptop vfs-device list --json 2>/dev/null | grep -c '"pending"')"
on laptop vfs-device group create home laptop phone tablet
step "enrolled laptop, phone and tablet (identity and token in each keychain); group home = $(on laptop vfs-device group list | cut -f2)"

mkdir -p outgoing/trip && echo "flight 8:05, gate B12" > outgoing/trip/itinerary.txt && seq 1 500 > outgoing/trip/expenses.csv
transfer=$(on laptop vfs-push -q -g home -r outgoing/trip)
step "laptop pushed trip/ to group home: one upload, transfer $transfer; the relay's blobs hold $(grep -rl 'gate B12\|itinerary' "$relay_data" 2>/dev/null | wc -l) files with the plaintext or names"

for who in laptop phone; do on "$who" vfs-policy add com.example.viewer --group home --type txt --type csv >/dev/null; done
on tablet vfs-policy add com.example.viewer --group work >/dev/null
mkdir -p phone-inbox tablet-inbox
# The laptop, the sender, is left out of its own group's push; -v names the verified sender.
on phone vfs-fetch --all -v -C phone-inbox --for com.example.viewer 2>sender.txt
step "phone fetched it for com.example.viewer (its policy allows group home): identical: $(diff -r outgoing/trip phone-inbox/trip >/dev/null && echo yes || echo no); $(sed -n 's/^vfs-fetch: transfer [0-9a-f]* is //p' sender.txt | head -1)"
if on tablet vfs-fetch --all -C tablet-inbox --for com.example.viewer 2>err.txt; then echo "unexpected: the tablet's policy allowed it"; exit 1; fi
step "tablet's policy refuses it (exit 77: $(sed -n 's/^vfs-fetch: error: //p' err.txt | head -1)); the tablet declines"
on tablet vfs-fetch --decline "$transfer"
step "outbox: $(on laptop vfs-push outbox | awk 'NR>1 {printf "%s%s %s", (NR>2 ? "; " : ""), $1, $2}')"

# A colleague: bob's desktop enrols; alice sends to bob by address, encrypted to the
# devices of bob's verified device chain, whose root her laptop pins at the first send.
code=$(vfs-relay user add bob@acme.example --org acme --data "$relay_data" 2>/dev/null)
mkdir -p "$work/desktop/run" && chmod 700 "$work/desktop/run"
on desktop vfs-keychain init --work-factor 14 --passcode-file "$pass" 2>/dev/null
on desktop vfs-device enroll "$url" "$code" --name desktop >/dev/null 2>&1
on desktop vfs-device list >/dev/null 2>&1
echo "minutes of Monday's meeting" > outgoing/minutes.txt
to_bob=$(on laptop vfs-push -q --to bob@acme.example outgoing/minutes.txt 2>/dev/null)
step "laptop sent minutes.txt to bob@acme.example by address (transfer ${to_bob:0:12}…): $(on laptop vfs-push outbox "$to_bob" | awk -F'\t' '{printf "%s %s %s", $5, $6, $7}')"
ours=$(on laptop vfs-device verify bob@acme.example 2>/dev/null); theirs=$(on desktop vfs-device verify alice@acme.example 2>/dev/null)
step "safety code on alice's laptop and bob's desktop: the same: $([ "$ours" = "$theirs" ] && echo yes || echo no) (${ours:0:17}…); alice records it"
on laptop vfs-device verify bob@acme.example --confirm "$theirs" 2>/dev/null
mkdir -p desktop-inbox
on desktop vfs-fetch --all -v --from alice@acme.example -C desktop-inbox 2>sender.txt
step "bob's desktop fetched it: \"$(cat desktop-inbox/minutes.txt)\"; $(sed -n 's/^vfs-fetch: transfer [0-9a-f]* is //p' sender.txt | head -1)"

# Cloud folders: files encrypted on the laptop to every device of alice, stored on the relay.
on laptop vfs-cloud mkdir -p /docs/2026
on laptop vfs-cloud put -q outgoing/trip/itinerary.txt outgoing/trip/expenses.csv /docs/2026/
step "cloud: laptop put 2 files in /docs/2026: vfs-cloud ls -l shows $(on laptop vfs-cloud ls -l /docs/2026 | awk '{printf "%s%s (%s bytes)", (NR>1 ? ", " : ""), $4, $2}')"
step "cloud: the phone streams one back (vfs-cloud get --stdout): \"$(on phone vfs-cloud get /docs/2026/itinerary.txt --stdout)\"; the relay's files hold the plaintext: $(grep -rl 'gate B12' "$relay_data" 2>/dev/null | wc -l)"

mkdir -p phone-watch && : > watch.log
on phone vfs-fetch --watch -C phone-watch --wipe-on-logout 2>watch.log &
watch_pid=$!
for _ in $(seq 1 100); do grep -q 'policy synced' watch.log && break; sleep 0.1; done
on phone vfs-policy check --relay com.example.editor --type txt 2>/dev/null && { echo "unexpected: the editor was approved"; exit 1; }
on laptop vfs-policy add --relay com.example.editor --type txt >/dev/null
start=$(date +%s%N)
for _ in $(seq 1 100); do on phone vfs-policy check --relay com.example.editor --type txt 2>/dev/null && break; sleep 0.02; done
on phone vfs-policy check --relay com.example.editor --type txt
step "policy on the relay: the laptop (an admin) approved com.example.editor; the phone's watcher took the policy event and its check allowed it $(( ($(date +%s%N) - start) / 1000000 )) ms later, no sync run (offline grace $(on phone vfs-policy grace 2>/dev/null))"
on laptop vfs-device revoke phone
wait "$watch_pid" && watch_status=0 || watch_status=$?
step "phone revoked: its watcher exited $watch_status ($(sed -n 's/^vfs-fetch: error: //p' watch.log)); keychain entries left: $(on phone vfs-keychain list --passcode-file "$pass" 2>/dev/null | wc -l)"

login=$(vfs-relay login-code alice@acme.example --data "$relay_data" 2>/dev/null)
step "admin web page: $url/admin/ (sign in with the one-time code $login, from vfs-relay login-code alice@acme.example)"
if [ "${KEEP:-}" = 1 ]; then
  echo "the relay keeps running (make demo KEEP=1): open $url/admin/ and paste the code; a new one:"
  echo "  $BIN/vfs-relay login-code alice@acme.example --data $relay_data"
  echo "press Ctrl-C to stop it (its data folder is removed then)"
  wait "$relay_pid" || true
  exit 0
fi
kill "$relay_pid" && wait "$relay_pid" || true
step "relay stopped (make demo KEEP=1 keeps it running for the admin page)"
echo "demo finished"
