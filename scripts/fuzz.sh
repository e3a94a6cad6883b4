#!/usr/bin/env bash
# make fuzz: runs each libFuzzer target of fuzz-harness for FUZZ_TIME seconds, one at a
# time under nice, on a corpus seeded from the CCTV vectors and Fuzz/seeds (kept in
# .build-fuzz/corpus, so it grows from run to run). A crash stops that target; its
# input is saved as .build-fuzz/crashes/TARGET/crash-… (copy it to
# Fuzz/crashers/TARGET/ and add a test that replays it). Prints one line per target:
# executions, crashes and seconds run; exits 1 if any target crashed.
# Environment: FUZZ_BIN (the harness), FUZZ_TIME (default 60), FUZZ_TARGETS (default all),
# CCTV (the vectors' folder), FUZZ_DIR (default .build-fuzz).
set -u
FUZZ_TIME=${FUZZ_TIME:-60}
FUZZ_DIR=${FUZZ_DIR:-.build-fuzz}
FUZZ_TARGETS=${FUZZ_TARGETS:-header armor bech32 keyfile keychain manifest policy relay-headers}
CCTV=${CCTV:-../shared/testdata/cctv-age}
: "${FUZZ_BIN:?FUZZ_BIN must name the fuzz-harness harness}"

python3 "$(dirname "$0")/fuzz-seeds.py" "$CCTV" "$FUZZ_DIR/corpus" >/dev/null || exit 1
report="$FUZZ_DIR/fuzz-report.txt"
failed=0

# FUZZ_REPLAY=1 (make fuzz-release): FUZZ_BIN is the harness built as the release is
# (whole-module optimisation, which leaves it without coverage of most Swift files, so
# no guided fuzzing): every corpus input, seed and crasher of each target runs through it
# once (-runs=0), then it mutates from them for FUZZ_TIME seconds more, its finds kept
# apart from the guided corpus. A crash or sanitizer report fails the target.
if [ "${FUZZ_REPLAY:-0}" = 1 ]; then
  report="$FUZZ_DIR/fuzz-release-report.txt"
  : > "$report"
  for target in $FUZZ_TARGETS; do
    mkdir -p "$FUZZ_DIR/release-crashes/$target" "$FUZZ_DIR/release-corpus/$target" "$FUZZ_DIR/logs"
    log="$FUZZ_DIR/logs/release-$target.log"
    inputs=$(ls "$FUZZ_DIR/corpus/$target" | wc -l)
    start=$(date +%s)
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} nice -n 19 "$FUZZ_BIN" "$target" -runs=0 -timeout=30 -detect_leaks=0 -max_len=65536 \
      -artifact_prefix="$FUZZ_DIR/release-crashes/$target/" "$FUZZ_DIR/corpus/$target" >"$log" 2>&1
    status=$?
    if [ "$status" -eq 0 ] && [ "$FUZZ_TIME" -gt 0 ]; then
      ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} nice -n 19 "$FUZZ_BIN" "$target" -max_total_time="$FUZZ_TIME" -timeout=30 -detect_leaks=0 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$FUZZ_DIR/release-crashes/$target/" \
        "$FUZZ_DIR/release-corpus/$target" "$FUZZ_DIR/corpus/$target" >>"$log" 2>&1
      status=$?
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    printf '%-13s %6d inputs replayed  %12s executions after  exit %d  %5d s\n' "$target" "$inputs" "${runs:-0}" "$status" \
      "$(( $(date +%s) - start ))" | tee -a "$report"
    if [ "$status" -ne 0 ]; then
      failed=1
      tail -n 40 "$log" | grep -m5 -E 'ERROR|Fatal|Crash|SUMMARY|artifact' >&2
    fi
  done
  exit $failed
fi

: > "$report"
for target in $FUZZ_TARGETS; do
  mkdir -p "$FUZZ_DIR/crashes/$target" "$FUZZ_DIR/logs"
  log="$FUZZ_DIR/logs/$target.log"
  before=$(ls "$FUZZ_DIR/crashes/$target" | wc -l)
  start=$(date +%s)
  # -timeout: an input that takes this long is a hang, reported like a crash.
  # -detect_leaks=0 and ASAN_OPTIONS: LeakSanitizer reports Swift's lazily initialised
  # globals (static lets set on first use, e.g. HybridRecipient.info) as leaks, of the
  # first input and again at exit.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} nice -n 19 "$FUZZ_BIN" "$target" -max_total_time="$FUZZ_TIME" -timeout=30 -detect_leaks=0 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$FUZZ_DIR/crashes/$target/" "$FUZZ_DIR/corpus/$target" >"$log" 2>&1
  status=$?
  seconds=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashes=$(( $(ls "$FUZZ_DIR/crashes/$target" | wc -l) - before ))
  if [ "$status" -ne 0 ]; then
    failed=1
    [ "$crashes" -eq 0 ] && crashes=1
    runs=${runs:-$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')}
  fi
  # A harness built without coverage for Swift code runs blind: libFuzzer says so, and
  # the run must not count as fuzzing.
  if grep -q 'no interesting inputs were found' "$log"; then
    echo "fuzz: error: $target ran without coverage feedback (is the Swift code instrumented? see FUZZ_SWIFTC in the Makefile)" >&2
    failed=1
  fi
  printf '%-9s %12s executions  %d crashes  %5d s  corpus %d\n' "$target" "${runs:-?}" "$crashes" "$seconds" \
    "$(ls "$FUZZ_DIR/corpus/$target" | wc -l)" | tee -a "$report"
  [ "$status" -ne 0 ] && tail -n 40 "$log" | grep -m5 -E 'ERROR|Fatal|Crash|SUMMARY|artifact' >&2
done
exit $failed
