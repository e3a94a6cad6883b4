#!/usr/bin/env bash
# vfs-keychain get on a keychain of BENCH_ENTRIES entries (default 10000, the issue's
# size) with the agent unlocked, next to `pass show` on a pass store (one gpg file per
# entry, so its size does not matter to pass: PASS_ENTRIES, default 20, are made).
# RUNS (default 5) sets the runs per command.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need hyperfine; need python3
N=${BENCH_ENTRIES:-10000}
export VFS_KEYCHAIN="$BENCH_DIR/keychain" XDG_RUNTIME_DIR="$BENCH_DIR/run" VFS_PASSCODE=bench-passcode
mkdir -m 700 "$XDG_RUNTIME_DIR"
kc="$BIN/vfs-keychain"
export GNUPGHOME="$BENCH_DIR/gnupg" PASSWORD_STORE_DIR="$BENCH_DIR/pass"
# Never leave the agent (or pass's gpg-agent) running.
bench_on_exit '"$kc" lock >/dev/null 2>&1'
bench_on_exit 'command -v gpgconf >/dev/null && gpgconf --kill gpg-agent >/dev/null 2>&1'

"$kc" init 2>/dev/null   # default work factor (18), as a user gets
python3 -c 'import json,sys; print(json.dumps([{"service": "host%05d.example.com" % i, "account": "user%d" % i,
  "secret": "s3cret-%d-%s" % (i, "x" * 24)} for i in range(int(sys.argv[1]))]))' "$N" | "$kc" import 2>/dev/null
"$kc" unlock --timeout 10m 2>/dev/null
unset VFS_PASSCODE
last=$((N - 1))
get="$kc get host$(printf %05d $last).example.com user$last"
[ "$($get)" = "s3cret-$last-$(printf 'x%.0s' $(seq 24))" ] || { echo "vfs-keychain get returned the wrong secret"; exit 1; }

echo "keychain: $N entries, $(wc -c <"$VFS_KEYCHAIN") bytes, agent unlocked; $(nproc) cores; mean of ${RUNS:-5} runs"
printf '%-34s %12s %10s %12s\n' command seconds "peak RSS" "vs pass"
p=""
if command -v pass >/dev/null && command -v gpg >/dev/null; then
  mkdir -m 700 "$GNUPGHOME"
  gpg --batch --quiet --passphrase '' --quick-gen-key bench@vfs.invalid default default never 2>/dev/null
  pass init bench@vfs.invalid >/dev/null
  for i in $(seq 0 $((${PASS_ENTRIES:-20} - 1))); do
    printf 's3cret-%s\n' "$i" | pass insert -e "host$(printf %05d $i).example.com/user$i" >/dev/null
  done
  pcmd="pass show host00000.example.com/user0"
  p=$(mean_seconds "$pcmd")
  printf '%-34s %12s %9s MiB %10s\n' "pass show (gpg, no passphrase)" "$p" "$(peak_mib "$pcmd")" "1.00x"
else
  echo "(pass or gpg is not installed: no pass column; make bench-deps installs them)"
fi
v=$(mean_seconds "$get")
printf '%-34s %12s %9s MiB %10s\n' "vfs-keychain get (agent)" "$v" "$(peak_mib "$get")" "$([ -n "$p" ] && ratio "$p" "$v" || echo n/a)"
f=$(mean_seconds "$kc --version")
printf '%-34s %12s %9s MiB %10s\n' "vfs-keychain --version (start-up)" "$f" "$(peak_mib "$kc --version")" "$([ -n "$p" ] && ratio "$p" "$f" || echo n/a)"
