#!/usr/bin/env bash
# make test's runner: the built test binary run as four processes at once, each with
# part of the suites, and their output shown shard by shard as each ends.
#
# Why: Swift Testing runs every test of a process on Swift's cooperative threads, one
# per core. A test that runs a tool (Tools.run) holds its thread until the tool exits,
# so on a 2-core machine one process has at most two tools running while the rest of
# its tests wait. Four processes let eight run, and the cores stay busy.
#
# Usage: scripts/test-shards.sh TEST_BINARY [LOG_FOLDER]
# Exit status: 0 when every shard passed; else the first failing shard's status.
# SHARDS=1 runs everything in one process (as `swift test` does).
set -uo pipefail
# Debian gives a user's shell no /usr/sbin or /sbin, where the tests' nginx, losetup,
# filefrag, mkfs.ext4 and dpkg's ldconfig live.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin:/sbin" ;; esac

binary=${1:?usage: test-shards.sh TEST_BINARY [LOG_FOLDER]}
logs=${2:-$(mktemp -d "${TMPDIR:-/tmp}/vfs-test-shards.XXXXXX")}
mkdir -p "$logs"
[ -x "$binary" ] || { echo "test-shards: error: no test binary at $binary (run swift build --build-tests)" >&2; exit 66; }

# The end-to-end suites that run the relay and its clients (most of them wait on a relay
# process), in two halves (transfers, and the relay's own and the rest); the other
# end-to-end suites (the local tools); every other target.
transfers='EndToEndTests\.(Transfer|Streaming|Hostile|Cloud|People|ScaleOut|Device)'
relay='EndToEndTests\.(Relay|S3|ClientWalk|SecondWalk|Nginx|QuickStart|UploadQuota|AdminBrowser|OpenAPI|OrgUsers|PluginDevice|BackgroundServer)'
if [ "${SHARDS:-4}" = 1 ]; then
  names=(all); args=("")
else
  names=(transfers relay local-end-to-end libraries)
  args=("--filter $transfers" "--filter $relay" "--filter EndToEndTests\. --skip $transfers --skip $relay" "--skip EndToEndTests\.")
fi

pids=()
for i in "${!names[@]}"; do
  # A background command of a shell without job control ignores SIGINT and SIGQUIT, and
  # so would every tool the tests run (the Ctrl-C tests send them SIGINT): env puts them back.
  # shellcheck disable=SC2086 # the arguments are words; the regexes hold no spaces
  env --default-signal=INT,QUIT "$binary" --testing-library swift-testing ${args[$i]} > "$logs/${names[$i]}.log" 2>&1 &
  pids+=($!)
done

status=0
left=("${!names[@]}")
# Show each shard's log whole when it ends, in the order they end.
while [ ${#left[@]} -gt 0 ]; do
  wait -n "${pids[@]}" 2>/dev/null || true
  still=()
  for i in "${left[@]}"; do
    if kill -0 "${pids[$i]}" 2>/dev/null; then still+=("$i"); continue; fi
    wait "${pids[$i]}"; rc=$?
    echo "=== shard ${names[$i]}: exit $rc ==="
    cat "$logs/${names[$i]}.log"
    [ $rc -ne 0 ] && [ $status -eq 0 ] && status=$rc
  done
  left=("${still[@]}")
done

echo "=== summary ==="
for i in "${!names[@]}"; do
  line=$(grep -a 'Test run with' "$logs/${names[$i]}.log" | tail -1)
  echo "${names[$i]}: ${line:-no summary line (the process died; see its log above)}"
done
# Each test once: the shards' counts add up to the binary's own list.
listed=$("$binary" --testing-library swift-testing --list-tests 2>/dev/null | grep -c '/' || true)
ran=$(grep -ah 'Test run with' "$logs"/*.log | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' | awk '{n += $1} END {print n + 0}')
echo "tests: ${ran:-0} run, ${listed:-?} listed"
if [ -n "$listed" ] && [ "$listed" != 0 ] && [ "${ran:-0}" != "$listed" ] && [ $status -eq 0 ]; then
  echo "test-shards: error: the shards ran ${ran:-0} tests but the binary lists $listed" >&2
  status=1
fi
exit $status
