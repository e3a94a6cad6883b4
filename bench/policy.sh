#!/usr/bin/env bash
# vfs-policy check on a policy of POLICY_ITEMS items (default 1000) against a trivial
# peer, jq answering the same question from the same file; and the cost of one change
# (lock, re-read, atomic write with fsync, log) on that policy. RUNS (default 5) sets
# the runs per command. The same check from this device's copy of the organisation's
# list on the relay (vfs-policy check --relay: the same items in the copy's format,
# written here as vfs-policy sync writes it; no relay runs, so no network is on the path).
# The binary timed is BIN's vfs-policy stripped, as make install ships it. Each check is
# timed by hyperfine without a shell (-N): the mean wall time and the mean CPU time
# (user + system), the steadier figure on a busy machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need hyperfine; need jq
N=${POLICY_ITEMS:-1000}
strip -o "$BENCH_DIR/vfs-policy" "$BIN/vfs-policy"
POLICY_BIN="$BENCH_DIR/vfs-policy"
# wall_cpu CMD: the mean wall and CPU (user + system) milliseconds of CMD over RUNS runs.
wall_cpu() {
  local json="$BENCH_DIR/hf-check.json"
  hyperfine -N --style none --warmup 3 --runs "${RUNS:-5}" --export-json "$json" "$1" >/dev/null 2>&1 || { echo "nan nan"; return; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.1f %.1f" % (r["mean"]*1000, (r["user"]+r["system"])*1000))' "$json"
}
export VFS_POLICY="$BENCH_DIR/policy.json"
python3 - "$N" > "$BENCH_DIR/import.json" <<'PY'
import json, sys
n = int(sys.argv[1])
items = [{"id": "%08x" % i, "app": "com.example.app%d" % i, "name": "App %d" % i,
          "groups": ["finance", "legal"], "types": ["pdf", "txt"], "enabled": True,
          "created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z"} for i in range(n)]
print(json.dumps({"version": 1, "items": items}, indent=2))
PY
"$POLICY_BIN" import --replace "$BENCH_DIR/import.json" 2>/dev/null
app="com.example.app$((N / 2))"
vcmd="$POLICY_BIN check $app --group finance --file q3.pdf"
jcmd="jq -e --arg app $app '.items[] | select(.app == \$app and .enabled and (.groups | index(\"finance\")) and (.types | index(\"pdf\")))' $VFS_POLICY"
$vcmd && bash -c "$jcmd" >/dev/null || { echo "the check and the peer disagree"; exit 1; }
echo "policy: $N items ($(wc -c < "$VFS_POLICY") bytes); mean of ${RUNS:-5} runs; vfs-policy stripped as make install ships it; load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-28s %8s %8s %10s %8s %8s\n' command "wall ms" "cpu ms" "peak RSS" "vs jq" "cpu vs jq"
read -r jw jc < <(wall_cpu "$jcmd"); read -r vw vc < <(wall_cpu "$vcmd")
printf '%-28s %8s %8s %6s MiB %8s %8s\n' "jq select (peer)" "$jw" "$jc" "$(peak_mib "$jcmd")" "1.00x" "1.00x"
printf '%-28s %8s %8s %6s MiB %8s %8s\n' "vfs-policy check" "$vw" "$vc" "$(peak_mib "$vcmd")" "$(ratio "$jw" "$vw")" "$(ratio "$jc" "$vc")"
echo "vfs-policy check against jq: $(ratio "$jw" "$vw") by wall time, $(ratio "$jc" "$vc") by CPU time (above 1.00x: faster than jq)"
export VFS_HOME="$BENCH_DIR/home"
mkdir -p -m 700 "$VFS_HOME/policy-cache"
python3 - "$VFS_POLICY" "$VFS_HOME/policy-cache/organisation.json" <<'PY'
import datetime, json, sys
doc = json.load(open(sys.argv[1]))
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
doc["relay"] = {"url": "http://127.0.0.1:9", "revision": "\"r1\"", "fetched": now, "graceSeconds": 259200}
open(sys.argv[2], "w").write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
PY
chmod 600 "$VFS_HOME/policy-cache/organisation.json"
rcmd="$POLICY_BIN check --relay $app --group finance --file q3.pdf"
$rcmd || { echo "the relay copy does not approve $app"; exit 1; }
read -r rw rc < <(wall_cpu "$rcmd")
printf '%-28s %8s %8s %6s MiB %8s %8s\n' "check --relay (the copy)" "$rw" "$rc" "$(peak_mib "$rcmd")" "$(ratio "$jw" "$rw")" "$(ratio "$jc" "$rc")"
echo "check from the relay copy vs from the local file: $(ratio "$vc" "$rc") of the file's speed (cpu)"
ucmd="$POLICY_BIN update $app --name 'App renamed'"
u=$(mean_seconds "$ucmd")
printf '%-28s %8s %8s %6s MiB %8s %8s\n' "vfs-policy update (a change)" "$(python3 -c "print('%.1f' % ($u * 1000))")" "" "$(peak_mib "$ucmd")" "n/a" ""
