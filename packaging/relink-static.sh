#!/usr/bin/env bash
# Relinks a build's tools with Swift's standard library and Foundation (FoundationEssentials;
# full Foundation and ICU only where a tool's objects use them: vfs-relay) linked in, as a
# release build links them (Package.swift's staticSwift), from that build's own object files
# (the link command SwiftPM recorded in CONFIG.yaml, plus -static-stdlib and the libraries
# the static Foundation needs that a dynamic build's objects do not name). The packaging
# tests use it when they run on a debug build (make test CONFIG=debug), whose tools load the
# toolchain's libraries; make test's release build needs none of it.
# Usage: packaging/relink-static.sh BIN OUT TOOL…   (BIN: e.g. .build/debug)
set -euo pipefail
bin=$1 out=$2; shift 2
config=$(basename "$bin")
yaml=""
for candidate in "$(dirname "$bin")/$config.yaml" "$(dirname "$(dirname "$bin")")/$config.yaml"; do
  [ -f "$candidate" ] && { yaml=$candidate; break; }
done
[ -n "$yaml" ] || { echo "relink-static: error: no $config.yaml beside \"$bin\"" >&2; exit 1; }
mkdir -p "$out"
python3 - "$yaml" "$out" "$@" <<'PY'
import json, re, subprocess, sys
yaml, out, tools = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(yaml).read()
# What a static Foundation needs beyond a dynamic build's autolink entries (twice: the
# archives refer to each other).
extra = ["-lswiftSynchronization", "-l_FoundationICU", "-lCoreFoundation", "-lFoundation", "-lFoundationEssentials",
         "-lFoundationInternationalization", "-l_FoundationCShims", "-l_FoundationCollections"]
for tool in tools:
    m = re.search(r'"C\.%s-[^"]*\.exe":\n(?:    .*\n)*?    args: (\[.*\])\n' % re.escape(tool), text)
    if not m:
        sys.exit("relink-static: error: no link command for %s in %s" % (tool, yaml))
    args = json.loads(m.group(1))
    args[args.index("-o") + 1] = out + "/" + tool
    if "-static-stdlib" not in args:
        args.append("-static-stdlib")
    args += extra + extra
    done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        errors = [l for l in done.stderr.splitlines() if "error" in l][:3]
        sys.exit("relink-static: error: linking %s failed: %s" % (tool, " / ".join(errors)))
PY
