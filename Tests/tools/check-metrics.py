"""Checks the relay's /metrics text (on stdin) as `promtool check metrics` does, and prints
its samples (Tests/EndToEndTests/RelayMetricsTests.swift).

The text is parsed by prometheus_client's parser (PyPI, pinned in the Makefile), then held
to promtool's lint rules (prometheus/util/promlint): a HELP text and a TYPE for every
family, counters ending in `_total` and nothing else doing so, base units (seconds,
bytes), no abbreviated units, snake_case, no type or reserved suffix in a name; and the
relay's own: every name starts with `vfs_relay_`, every histogram of a duration is in
`_seconds`. Prints {"problems": [...], "samples": [{"name", "labels", "value"}]} as JSON;
exits 1 when there is a problem.
"""
import json
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
problems = []

helps = {}
types = {}
for line in text.splitlines():
    if line.startswith("# HELP "):
        name, _, help_text = line[len("# HELP "):].partition(" ")
        if name in helps:
            problems.append(f"{name}: a second HELP line")
        helps[name] = help_text
    elif line.startswith("# TYPE "):
        name, _, kind = line[len("# TYPE "):].partition(" ")
        if name in types:
            problems.append(f"{name}: a second TYPE line")
        types[name] = kind

samples = []
try:
    families = list(text_string_to_metric_families(text))
except Exception as error:  # the parser refuses what is not the text format
    problems.append(f"not the Prometheus text format: {error}")
    families = []
for family in families:
    for sample in family.samples:
        samples.append({"name": sample.name, "labels": sample.labels, "value": sample.value})

# A sample's family: its own name, or that name without a histogram's suffix.
def family_of(sample_name):
    if sample_name in types:
        return sample_name
    for suffix in ("_bucket", "_sum", "_count"):
        base = sample_name[: -len(suffix)] if sample_name.endswith(suffix) else None
        if base and types.get(base) in ("histogram", "summary"):
            return base
    return None

for sample in samples:
    if family_of(sample["name"]) is None:
        problems.append(f"{sample['name']}: a sample without a TYPE line")

non_base_units = ["milliseconds", "microseconds", "nanoseconds", "minutes", "hours", "days", "weeks",
                  "kilobytes", "megabytes", "gigabytes", "terabytes", "kibibytes", "mebibytes", "gibibytes",
                  "bits", "percent", "celsius", "fahrenheit"]
abbreviations = ["sec", "secs", "ms", "us", "ns", "msec", "usec", "min", "mins", "hr", "hrs", "kb", "mb", "gb", "kib", "mib", "gib", "pct"]
for name, kind in types.items():
    if not helps.get(name, "").strip():
        problems.append(f"{name}: no HELP text")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        problems.append(f"{name}: not snake_case (or a reserved ':')")
    if not name.startswith("vfs_relay_"):
        problems.append(f"{name}: not named for the relay (vfs_relay_…)")
    if kind == "counter" and not name.endswith("_total"):
        problems.append(f"{name}: a counter without _total")
    if kind != "counter" and name.endswith("_total"):
        problems.append(f"{name}: _total on a {kind}")
    if kind not in ("histogram", "summary") and re.search(r"_(bucket|count|sum)$", name):
        problems.append(f"{name}: a reserved histogram suffix on a {kind}")
    words = name.split("_")
    for unit in non_base_units:
        if unit in words:
            problems.append(f"{name}: {unit} is not a base unit (seconds, bytes, ratio)")
    for abbreviation in abbreviations:
        if abbreviation in words:
            problems.append(f"{name}: the unit abbreviated ({abbreviation})")
    for type_word in ("counter", "gauge", "histogram", "summary"):
        if type_word in words:
            problems.append(f"{name}: the metric type in its name")
    if kind == "histogram" and any(word in words for word in ("duration", "time", "latency")) and not name.endswith("_seconds"):
        problems.append(f"{name}: a duration not in _seconds")
for name in helps:
    if name not in types:
        problems.append(f"{name}: HELP without TYPE")

json.dump({"problems": problems, "samples": samples}, sys.stdout)
sys.exit(1 if problems else 0)
