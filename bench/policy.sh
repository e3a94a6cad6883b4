#!/usr/bin/env bash
# vfs-policy check on a policy of POLICY_ITEMS items (default 1000) against a trivial
# peer, jq answering the same question from the same file; and the cost of one change
# (lock, re-read, atomic write with fsync, log) on that policy. RUNS (default 5) sets
# the runs per command. The same check from this device's copy of the organisation's
# list on the relay (vfs-policy check --relay: the same items in the copy's format,
# written here as vfs-policy sync writes it; no relay runs, so no network is on the path).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need hyperfine; need jq
N=${POLICY_ITEMS:-1000}
export VFS_POLICY="$BENCH_DIR/policy.json"
python3 - "$N" > "$BENCH_DIR/import.json" <<'PY'
import json, sys
n = int(sys.argv[1])
items = [{"id": "%08x" % i, "app": "com.example.app%d" % i, "name": "App %d" % i,
          "groups": ["finance", "legal"], "types": ["pdf", "txt"], "enabled": True,
          "created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z"} for i in range(n)]
print(json.dumps({"version": 1, "items": items}, indent=2))
PY
"$BIN/vfs-policy" import --replace "$BENCH_DIR/import.json" 2>/dev/null
app="com.example.app$((N / 2))"
vcmd="$BIN/vfs-policy check $app --group finance --file q3.pdf"
jcmd="jq -e --arg app $app '.items[] | select(.app == \$app and .enabled and (.groups | index(\"finance\")) and (.types | index(\"pdf\")))' $VFS_POLICY"
$vcmd && bash -c "$jcmd" >/dev/null || { echo "the check and the peer disagree"; exit 1; }
echo "policy: $N items ($(wc -c < "$VFS_POLICY") bytes); mean of ${RUNS:-5} runs"
printf '%-28s %10s %10s %10s\n' command seconds "peak RSS" "vs jq"
j=$(mean_seconds "$jcmd"); v=$(mean_seconds "$vcmd")
printf '%-28s %10s %6s MiB %10s\n' "jq select (peer)" "$j" "$(peak_mib "$jcmd")" "1.00x"
printf '%-28s %10s %6s MiB %10s\n' "vfs-policy check" "$v" "$(peak_mib "$vcmd")" "$(ratio $j $v)"
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
rcmd="$BIN/vfs-policy check --relay $app --group finance --file q3.pdf"
$rcmd || { echo "the relay copy does not approve $app"; exit 1; }
r=$(mean_seconds "$rcmd")
printf '%-28s %10s %6s MiB %10s\n' "check --relay (the copy)" "$r" "$(peak_mib "$rcmd")" "$(ratio $j $r)"
echo "check from the relay copy vs from the local file: $(ratio $v $r) of the file's speed"
ucmd="$BIN/vfs-policy update $app --name 'App renamed'"
u=$(mean_seconds "$ucmd")
printf '%-28s %10s %6s MiB %10s\n' "vfs-policy update (a change)" "$u" "$(peak_mib "$ucmd")" "n/a"
