#!/usr/bin/env bash
# make bench: every bench/*.sh in one run, each timing our tools and their peers side by side.
set -uo pipefail
cd "$(dirname "$0")/.."
export BIN=${BIN:-.build/release}
status=0
for script in bench/*.sh; do
  # A bench is a script (it starts with #!), other than this one; lib.sh is sourced.
  [ "$script" = bench/run.sh ] && continue
  head -c 2 "$script" | grep -q '^#!' || continue
  echo "### $(basename "$script" .sh)"
  bash "$script" || { echo "(bench $(basename "$script") failed)"; status=1; }
  echo
done
exit $status
