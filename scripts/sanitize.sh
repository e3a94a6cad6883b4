#!/usr/bin/env bash
# make sanitize's runner: the test suites against a build made with one of clang's
# sanitizers (the test runner and every tool it starts), and a failure for any report,
# whether it came from the runner or from a tool a test started.
#
# Usage: scripts/sanitize.sh address|thread BUILD_BIN
#   address  AddressSanitizer, optimised (-O, as make build compiles: the optimiser's
#            shorter lifetimes are what let C read freed memory): every suite.
#   thread   ThreadSanitizer: the suites of the concurrent parts (SANITIZE_THREAD_FILTER):
#            the parallel STREAM and its pipes, write-behind, the keychain and its agent,
#            the relay's upload hashing and event hub, the client's upload windows and
#            streamed downloads, and the end-to-end runs of those tools.
# Each process writes its reports to its own file (log_path) rather than to the stderr
# the tests read, so a report never changes what a test sees; any report file fails the run.
# Environment: SANITIZE_LOGS (a folder for the reports and the shards' logs; default a new
# temporary one), SANITIZE_THREAD_FILTER (a test-ID regex).
set -uo pipefail
# As in test-shards.sh: the tests' system tools live in /usr/sbin and /sbin.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin:/sbin" ;; esac

kind=${1:?usage: sanitize.sh address|thread BUILD_BIN}
bin=${2:?usage: sanitize.sh address|thread BUILD_BIN}
here=$(cd "$(dirname "$0")" && pwd)
logs=${SANITIZE_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/vfs-sanitize-$kind.XXXXXX")}
mkdir -p "$logs/reports"
runner="$bin/vfsPackageTests.xctest"
[ -x "$runner" ] || { echo "sanitize: error: no test binary at $runner" >&2; exit 66; }

# The tests' memory bounds (resident-memory peaks) can't hold under a sanitizer's shadow
# memory and quarantine: with VFS_SANITIZER set those tests run and check everything else.
export VFS_SANITIZER=$kind

case $kind in
address)
  # detect_leaks=0: LeakSanitizer counts Swift's lazily made globals (static lets set on
  # first use) and the runtime's metadata caches as leaks at every exit (docs/fuzzing.md).
  export ASAN_OPTIONS="detect_leaks=0:log_path=$logs/reports/asan:handle_abort=1:${ASAN_OPTIONS:-}"
  VFS_BIN_DIR="$bin" bash "$here/test-shards.sh" "$runner" "$logs/shards"
  status=$?
  ;;
thread)
  filter=${SANITIZE_THREAD_FILTER:-'VFSCoreTests\.(Concurrency|Streaming|WriteBehind|KeychainStore|IOTests)|VFSRelayServerTests\.(UploadHash|EventHub|Upload|Transfer|Cancel)|VFSRelayClientTests\.|EndToEndTests\.(Keychain|Streaming|AgeTools)'}
  # exitcode=0: a tool with a report still exits as it would have (the report file fails the run).
  # The suppressions: reports TSan cannot judge, each with its reason in the file.
  export TSAN_OPTIONS="log_path=$logs/reports/tsan:exitcode=0:suppressions=$here/tsan-suppressions.txt:${TSAN_OPTIONS:-}"
  mkdir -p "$logs/shards"
  VFS_BIN_DIR="$bin" env --default-signal=INT,QUIT "$runner" --testing-library swift-testing --filter "$filter" \
    > "$logs/shards/thread.log" 2>&1
  status=$?
  tail -n 5 "$logs/shards/thread.log"
  grep -a 'Test run with' "$logs/shards/thread.log" | tail -1
  ;;
*) echo "sanitize: error: the kind is address or thread, not \"$kind\"" >&2; exit 64 ;;
esac

reports=$(find "$logs/reports" -type f | sort)
if [ -n "$reports" ]; then
  echo "sanitize: error: $kind sanitizer reports ($(echo "$reports" | wc -l) files in $logs/reports):" >&2
  for r in $reports; do echo "--- $r" >&2; head -n 60 "$r" >&2; done
  exit 1
fi
[ $status -ne 0 ] && { echo "sanitize: error: the suites failed under the $kind sanitizer (logs in $logs/shards)" >&2; exit $status; }
echo "sanitize: $kind: no reports"
