#!/usr/bin/env bash
# A relay that keeps serving (issue 25): three devices push to each other, fetch and list
# for DURATION seconds while the relay is killed with SIGKILL at random (every 4-12 s)
# and restarted on the same port, and once, for a while, has no room left (restarted with
# a disk reserve above its free space, so every upload is answered 507). Then the relay
# stays up, every device resumes what it could not send and fetches what waits, and the
# ledger is checked: every file a push reported sent (or resumed) arrives exactly once,
# byte for byte, and no answer in the relay's logs was a 500. The pushes run as a script
# would run them, at the tools' default --retry-for (issue 45: they ride out the kills and
# the full disk; RETRY_FOR sets another, 0 shows what they did without it).
#
# Prints: pushes attempted / sent / failed (by exit status) / sent by a resume / lost, and
# the slowest push; files received / corrupted; relay kills; answers 507 and 500. Exit
# status 1 when a push failed or something was lost or corrupted or a 500 was logged.
# Everything on 127.0.0.1; stopped and removed on exit. DURATION (default 120) and BIN
# (default .build/release; .build/debug works) set it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-120}
if [ -n "${RETRY_FOR:-}" ]; then export VFS_RETRY_FOR=$RETRY_FOR; else unset VFS_RETRY_FOR; fi
for tool in vfs-relay vfs-device vfs-push vfs-fetch; do
  [ -x "$BIN/$tool" ] || { echo "skipped: $BIN/$tool is not built"; exit 0; }
done

data="$BENCH_DIR/relay"
relay() { "$BIN/vfs-relay" "$@" --data "$data"; }
relay init 2>/dev/null
relay org add acme >/dev/null
first_code=$(relay user add ann@acme.example --org acme 2>/dev/null)
port=""
relay_pid=""
start_relay() {  # start_relay [EXTRA OPTIONS…]: on the same port after the first start
  local listen="127.0.0.1:${port:-0}" n=$((${#BENCH_PIDS[@]}))
  "$BIN/vfs-relay" serve --listen "$listen" --data "$data" --log-level info "$@" \
    > "$BENCH_DIR/relay.out.$n" 2>> "$BENCH_DIR/relay.log" &
  relay_pid=$!
  BENCH_PIDS+=("$relay_pid")
  for _ in $(seq 600); do grep -q 'listening on' "$BENCH_DIR/relay.out.$n" 2>/dev/null && break; sleep 0.05; done
  grep -q 'listening on' "$BENCH_DIR/relay.out.$n" || { echo "the relay did not start: $(tail -3 "$BENCH_DIR/relay.log")"; exit 1; }
  port=$(sed -n 's/^vfs-relay: listening on http:\/\/127.0.0.1://p' "$BENCH_DIR/relay.out.$n")
}
start_relay
url="http://127.0.0.1:$port"

on() {  # on DEVICE TOOL ARGS…
  local who=$1 tool=$2; shift 2
  VFS_HOME="$BENCH_DIR/dev/$who" "$BIN/$tool" "$@" \
    --token-file "$BENCH_DIR/dev/$who/token" --identity-file "$BENCH_DIR/dev/$who/identity"
}
devices=(laptop phone tablet)
for who in "${devices[@]}"; do
  # A later device takes the chain, which it never saw, by the laptop's fingerprint.
  accept=()
  if [ ! -e "$BENCH_DIR/dev" ]; then code=$first_code; else
    code=$(relay invite ann@acme.example 2>/dev/null); accept=(--accept-chain "$(on laptop vfs-device fingerprint)")
  fi
  mkdir -p "$BENCH_DIR/dev/$who" "$BENCH_DIR/in/$who" "$BENCH_DIR/src/$who"
  on "$who" vfs-device enroll "$url" "$code" --name "$who" "${accept[@]}" >/dev/null 2>"$BENCH_DIR/enrol.log" \
    || { echo "enrolling $who failed: $(cat "$BENCH_DIR/enrol.log")"; exit 1; }
done
# The laptop, the first device, started the user's device chain: it approves the others
# (a push from or to a device outside the chain is refused, 77).
approve_devices laptop phone tablet
: > "$BENCH_DIR/ledger"     # sha256 target status milliseconds, one line per push
stop_at=$(( $(date +%s) + DURATION ))

# A device's work: push a new random file (1 KiB-3 MiB) to the next device, fetch its
# inbox, list; the outcome of each push goes into the ledger.
worker() {
  local who=$1 target=$2 n=0 file sum status began
  while [ "$(date +%s)" -lt "$stop_at" ]; do
    n=$((n + 1))
    file="$BENCH_DIR/src/$who/$who-$n.bin"
    head -c $(( (RANDOM * 97) % (3 << 20) + 1024 )) /dev/urandom > "$file"
    sum=$(sha256sum "$file" | cut -d' ' -f1)
    began=$(date +%s%3N)
    if on "$who" vfs-push -d "$target" "$file" >/dev/null 2>>"$BENCH_DIR/push-$who.log"; then status=sent; else status="failed:$?"; fi
    echo "$sum $target $status $(( $(date +%s%3N) - began ))" >> "$BENCH_DIR/ledger"
    on "$who" vfs-fetch --all -C "$BENCH_DIR/in/$who" >/dev/null 2>>"$BENCH_DIR/fetch-$who.log" || true
    on "$who" vfs-device list >/dev/null 2>&1 || true
  done
}
pids=()
for i in 0 1 2; do worker "${devices[$i]}" "${devices[$(( (i + 1) % 3 ))]}" & pids+=("$!"); done

# The killer: SIGKILL at random; once, a stretch with no room (a reserve above the free space).
kills=0; full_done=0
while [ "$(date +%s)" -lt "$stop_at" ]; do
  sleep $(( RANDOM % 9 + 4 ))
  kill -9 "$relay_pid" 2>/dev/null || true; wait "$relay_pid" 2>/dev/null || true
  kills=$((kills + 1))
  if [ "$full_done" = 0 ] && [ "$kills" -ge 3 ]; then
    free=$(df --output=avail -B1 "$data" | tail -1)
    start_relay --disk-reserve "$(( free + (64 << 20) ))"
    full_done=1
    sleep 8
    kill -9 "$relay_pid" 2>/dev/null || true; wait "$relay_pid" 2>/dev/null || true
    kills=$((kills + 1))
  fi
  start_relay
done
for pid in "${pids[@]}"; do wait "$pid" || true; done

# Settle: the relay stays up; every device resumes its unsent pushes, then fetches all.
resumed=0
for who in "${devices[@]}"; do
  out=$(on "$who" vfs-push resume 2>>"$BENCH_DIR/push-$who.log" || true)
  resumed=$((resumed + $(printf '%s' "$out" | grep -c . || true)))
done
for who in "${devices[@]}"; do on "$who" vfs-fetch --all -C "$BENCH_DIR/in/$who" >/dev/null 2>>"$BENCH_DIR/fetch-$who.log" || true; done

# The check: what each device received, by content.
python3 - "$BENCH_DIR" "$kills" "$resumed" <<'EOF'
import hashlib, os, sys, collections
bench, kills, resumed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ledger = [line.split() for line in open(os.path.join(bench, "ledger"))]
sources = {}
for who in ("laptop", "phone", "tablet"):
    for name in os.listdir(os.path.join(bench, "src", who)):
        sources[hashlib.sha256(open(os.path.join(bench, "src", who, name), "rb").read()).hexdigest()] = name
received = collections.Counter()
corrupted = 0
for who in ("laptop", "phone", "tablet"):
    for root, _, files in os.walk(os.path.join(bench, "in", who)):
        for name in files:
            digest = hashlib.sha256(open(os.path.join(root, name), "rb").read()).hexdigest()
            if digest in sources and sources[digest] == name:
                received[(digest, who)] += 1
            else:
                corrupted += 1
sent = [(s, t) for s, t, status, _ in ledger if status == "sent"]
failed = [(s, t, status) for s, t, status, _ in ledger if status != "sent"]
slowest = max((int(ms) for *_, ms in ledger), default=0) / 1000
lost = [x for x in sent if received[x] == 0]
twice = [x for x in received if received[x] > 1]
late = [x for x in failed if received[(x[0], x[1])] > 0]
log = open(os.path.join(bench, "relay.log"), errors="replace").read()
answers500 = sum(1 for line in log.splitlines() if " 500 " in line)
answers507 = sum(1 for line in log.splitlines() if " 507 " in line)
never = [x for x in failed if received[(x[0], x[1])] == 0]
print(f"pushes {len(ledger)}: sent {len(sent)}, failed {len(failed)} "
      f"({collections.Counter(s for _, _, s in failed).most_common()}), arrived after a resume {len(late)} (resume printed {resumed}); "
      f"slowest push {slowest:.1f} s")
print(f"received {sum(received.values())} files; lost {len(lost) + len(never)} ({len(lost)} reported sent, {len(never)} failed); "
      f"twice {len(twice)}; corrupted or unknown {corrupted}")
print(f"relay killed {kills} times; answers 507: {answers507}; answers 500: {answers500}")
sys.exit(1 if failed or lost or never or corrupted or twice or answers500 else 0)
EOF
