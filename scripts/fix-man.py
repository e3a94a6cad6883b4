#!/usr/bin/env python3
"""Tidies the man pages swift-argument-parser generates (run by `make man`).

- A tool without subcommands gets no `subcommand` in its synopsis and no `help`
  subcommand entry (the generator adds both to every page).
- Internal subcommands (their abstract starts with "Internal:") are left out.
- Blank lines, which mdoc warns about, become paragraph breaks (.Pp).
"""
import sys


def drop_entry(lines, start):
    """Removes `.It Em NAME` at `start` up to and including the first `.El` after it."""
    end = start
    while end < len(lines) and lines[end] != ".El":
        end += 1
    del lines[start:end + 1]


def tidy(text):
    lines = text.split("\n")
    subcommands = [l for l in lines if l.startswith(".It Em ") and l != ".It Em help"]
    i = 0
    while i < len(lines):
        line = lines[i]
        internal = line.startswith(".It Em ") and i + 1 < len(lines) and lines[i + 1].startswith("Internal:")
        if internal or (line == ".It Em help" and not subcommands):
            drop_entry(lines, i)
            continue
        if line == ".Ar subcommand" and not subcommands:
            del lines[i]
            continue
        if line == "":
            lines[i] = ".Pp"
        i += 1
    while lines and lines[-1] in (".Pp", ""):
        lines.pop()
    return "\n".join(lines) + "\n"


for path in sys.argv[1:]:
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(tidy(text))
