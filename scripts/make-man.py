#!/usr/bin/env python3
"""Writes a tool's man page (mdoc) from its own description (run by `make man`).

usage: make-man.py --date YYYY-MM-DD TOOL BINARY > man/man1/TOOL.1

The description is what the built tool says of itself (`TOOL --experimental-dump-help`,
swift-argument-parser's JSON: the abstract, discussion, options and subcommands that
--help shows), laid out in the sections man pages have:

- NAME, SYNOPSIS, DESCRIPTION (the discussion's prose), COMMANDS (each subcommand
  with its own options), OPTIONS, EXAMPLES (the discussion from "Examples:" up to
  "Exit status:"), EXIT STATUS (the "Exit status:" paragraph, one code an entry),
  ENVIRONMENT and FILES (those the text names), SEE ALSO (the pages the text names);
- extra sections from docs/man/TOOL.txt (a line in capitals opens a section), for text
  that belongs in the manual but not on --help's first screen;
- lines indented under a line ending in ':' are literal blocks (.Bd -literal): kept as
  written, never filled or hyphenated, each '-' a real minus so they copy and paste;
- characters outside ASCII (the '…' of age1…) are written as groff escapes, so no
  formatter drops them.
"""
import datetime
import json
import os
import re
import subprocess
import sys

ENVIRONMENT = {
    "VFS_HOME": "The folder of the keychain, the policy, the groups and the relay state "
                "(default $XDG_DATA_HOME/vfs, else ~/.local/share/vfs).",
    "VFS_KEYCHAIN": "The keychain file (default $VFS_HOME/keychain).",
    "VFS_POLICY": "The policy file (default $VFS_HOME/policy.json).",
    "VFS_RELAY": "The relay's URL, over the one in $VFS_HOME/relay.json.",
    "VFS_RELAY_CACERT": "A PEM file of the CA certificates to trust for an https:// relay, over the one "
                        "vfs-device enroll --cacert kept ($VFS_HOME/relay-ca.pem).",
    "VFS_PASSPHRASE": "The passphrase when neither --passphrase-file nor --passphrase-fd is given "
                      "(least safe: other processes of the user may read it).",
    "VFS_PASSCODE": "The keychain passcode when neither --passcode-file nor --passcode-fd is given "
                    "(least safe: other processes of the user may read it).",
    "VFS_NEW_PASSCODE": "The new keychain passcode when neither --new-passcode-file nor --new-passcode-fd is given (least safe).",
    "XDG_DATA_HOME": "$VFS_HOME defaults to $XDG_DATA_HOME/vfs.",
    "XDG_RUNTIME_DIR": "The keychain agent's private socket folder is $XDG_RUNTIME_DIR/vfs; "
                       "vfs-keychain edit puts its private file there when it is a tmpfs (else in /dev/shm).",
    "VISUAL": "The editor vfs-keychain edit runs (through sh -c), before $EDITOR.",
    "EDITOR": "The editor vfs-keychain edit runs when $VISUAL is unset (default vi).",
    "VFS_CLIP_TIME": "How long -c leaves a secret on the clipboard, a duration with its unit (default 45s).",
    "WAYLAND_DISPLAY": "With it set, -c copies with wl-copy.",
    "DISPLAY": "With it set (and no Wayland), -c copies with xclip, else xsel.",
    "HOME": "The home folder; when it is unset (cron, systemd, env -i), the one in the password database.",
}

FILES = {
    "vfs-keychain": [("$VFS_HOME/keychain", "the keychain (0600, in a 0700 folder)"),
                     ("$VFS_HOME/keychain.prev", "the keychain as it was before the last change"),
                     ("$VFS_HOME/keychain.epoch", "the epoch of the last save, against rollback"),
                     ("$XDG_RUNTIME_DIR/vfs/", "the unlock agent's socket"),
                     ("/dev/shm/vfs-edit.XXXXXX/", "edit's private folder (0700) while the editor runs; removed after")],
    "vfs-policy": [("$VFS_HOME/policy.json", "the policy (0600)"),
                   ("$VFS_HOME/policy.json.log", "who changed what, when (0600)"),
                   ("$VFS_HOME/policy.json.lock", "the lock every change takes")],
    "vfs-wrap": [("$VFS_HOME/groups/NAME", "the recipients of group NAME, one a line")],
    "vfs-unwrap": [("$VFS_HOME/policy.json", "the policy --for asks"),
                   ("DIR/.vfs-unwrap-*", "a staging folder; one a killed run left is removed by the next")],
    "vfs-device": [("$VFS_HOME/relay.json", "the relay and this device"),
                   ("$VFS_HOME/relay-ca.pem", "the private CA enroll --cacert trusts (0600)"),
                   ("$VFS_HOME/pins.json", "the pinned recipients of the devices and device chains of the users")],
    "vfs-push": [("$VFS_HOME/relay.json", "the relay and this device"),
                 ("$VFS_HOME/pins.json", "the pinned recipients of the devices and device chains of the users")],
    "vfs-fetch": [("$VFS_HOME/relay.json", "the relay and this device"),
                  ("$VFS_HOME/incoming/", "downloads being resumed")],
    "vfs-relay": [("$VFS_HOME/relay/", "the relay's database and blobs (--data)")],
    "vfs-decrypt": [("$VFS_HOME/keychain", "the keychain, for -K")],
    "vfs-encrypt": [("$VFS_HOME/keychain", "the keychain, for -K")],
}

PEERS = ["age", "age-keygen", "shred", "tar", "bsdtar", "ssh-keygen", "crontab", "systemd.timer", "zstd"]
# Peers whose names are also plain words ("pass"): named where the page is about them.
SEE_ALSO = {"vfs-keychain": ["pass"]}


def escape(text, literal=False):
    """Text for an mdoc line: backslashes, a leading dot or quote, non-ASCII characters."""
    out = text.replace("\\", "\\e")
    out = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in out)
    if literal:
        out = out.replace("-", "\\-")
    if out.startswith(".") or out.startswith("'"):
        out = "\\&" + out
    return out


def words(text):
    """Words of a macro line, quoted when they hold spaces."""
    return '"%s"' % text.replace('"', '\\(dq') if " " in text else text


def paragraphs(text):
    return [p for p in text.split("\n\n") if p.strip()]


def render_paragraph(paragraph, out):
    """Prose lines are filled; lines indented under a line ending in ':' are literal."""
    lines = paragraph.split("\n")
    prose, literal = [], []
    for line in lines:
        if line.startswith("  ") and (literal or not prose or prose[-1].rstrip().endswith(":")):
            literal.append(line[2:])
        else:
            if literal:
                flush_literal(literal, out)
                literal = []
            prose.append(line)
            if prose and not line.startswith("  "):
                pass
    if prose and not literal:
        out.append(".Pp")
        out.extend(escape(l.strip()) for l in prose if l.strip())
    elif prose or literal:
        out.append(".Pp")
        out.extend(escape(l.strip()) for l in prose if l.strip())
        flush_literal(literal, out)


def flush_literal(lines, out):
    out.append(".Bd -literal -offset indent")
    out.extend(escape(l, literal=True) for l in lines)
    out.append(".Ed")


def option_head(arg):
    names = sorted(arg.get("names", []), key=lambda n: 0 if n["kind"] == "short" else 1)
    if arg["kind"] == "positional":
        return ".It Ar %s" % words(arg.get("valueName", "arg"))
    parts = []
    for name in names:
        if name["kind"] == "short":
            parts.append("Fl %s" % name["name"])
        else:
            parts.append("Fl -%s" % name["name"])
    head = ".It " + " , ".join(parts)
    if arg["kind"] == "option":
        head += " Ar %s" % words(arg.get("valueName", "value"))
    return head


def render_options(arguments, out):
    shown = [a for a in arguments if a.get("shouldDisplay", True)]
    if not shown:
        return
    out.append(".Bl -tag -width Ds")
    for arg in shown:
        out.append(option_head(arg))
        text = arg.get("abstract", "")
        default = arg.get("defaultValue")
        if default not in (None, "", "false") and "default" not in text.lower():
            text += " (default: %s)" % default
        if arg.get("isRepeating") and arg["kind"] != "positional" and "epeatable" not in text:
            text += " Repeatable."
        out.append(escape(text) if text else ".")
    out.append(".El")


def synopsis_line(command, name, out):
    out.append(".Nm" + (" " + " ".join("Cm %s" % n for n in name) if name else ""))
    for arg in command.get("arguments", []):
        if not arg.get("shouldDisplay", True) or arg.get("names") and any(n["name"] in ("help", "version") for n in arg["names"]):
            continue
        head = option_head(arg)[len(".It "):]
        optional = arg.get("isOptional", False)
        line = (".Op " if optional else ".") + head
        if arg.get("isRepeating"):
            line += " No ..."
        out.append(line)


def split_discussion(text):
    """The discussion's prose, its examples, and its exit status paragraph."""
    prose, examples, status = [], [], ""
    in_examples = False
    for p in paragraphs(text):
        if p.startswith("Exit status:"):
            status = p[len("Exit status:"):].strip()
            in_examples = False
            continue
        if p.startswith("Examples:"):
            in_examples = True
            rest = p.split("\n", 1)
            examples.append("Examples:\n" + (rest[1] if len(rest) > 1 else ""))
            continue
        literal = any(l.startswith("  ") for l in p.split("\n"))
        # Prose after the examples (a note on -o, say) is the description's, unless it
        # goes on with them ("Or a systemd timer…:", "Then: systemctl …").
        if in_examples and not literal and not p.rstrip().endswith(":") and not re.match(r"(Then|Or|And)\b", p):
            prose.append(p)
            continue
        (examples if in_examples else prose).append(p)
    return prose, examples, status


def render_exit_status(status, out):
    out.append(".Sh EXIT STATUS")
    entries = []
    for part in re.split(r";\s+(?=\d+\s)", status.rstrip(".")):
        m = re.match(r"(\d+)\s+(.*)", part.strip(), re.S)
        if m:
            entries.append((m.group(1), m.group(2)))
        elif entries:
            entries[-1] = (entries[-1][0], entries[-1][1] + "; " + part)
    out.append(".Bl -tag -width Ds")
    for code, meaning in entries:
        out.append(".It Sy %s" % code)
        out.append(escape(meaning[0].upper() + meaning[1:] + "."))
    out.append(".El")


def all_text(command):
    parts = [command.get("abstract", ""), command.get("discussion", "")]
    parts += [a.get("abstract", "") for a in command.get("arguments", [])]
    for sub in command.get("subcommands", []):
        parts.append(all_text(sub))
    return "\n".join(parts)


def extra_sections(tool, root):
    path = os.path.join(root, "docs", "man", tool + ".txt")
    if not os.path.exists(path):
        return []
    sections, current = [], None
    for block in paragraphs(open(path, encoding="utf-8").read()):
        lines = block.split("\n")
        if re.fullmatch(r"[A-Z][A-Z ]+", lines[0].strip()):
            current = (lines[0].strip(), [])
            sections.append(current)
            lines = lines[1:]
        if lines and current:
            current[1].append("\n".join(lines))
    return sections


def page(tool, info, date, root, tools):
    command = info["command"]
    subcommands = [s for s in command.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
    out = ['.\\" Generated by make man (scripts/make-man.py) from %s --experimental-dump-help; do not edit.' % tool]
    day = datetime.date.fromisoformat(date)
    out.append(".Dd %s %d, %d" % (day.strftime("%B"), day.day, day.year))
    out.append(".Dt %s 1" % tool.upper())
    out.append(".Os")
    out.append(".Sh NAME")
    out.append(".Nm %s" % tool)
    out.append(".Nd " + escape(command.get("abstract", "").rstrip(".")))
    out.append(".Sh SYNOPSIS")
    if subcommands:
        for sub in subcommands:
            leaves = [s for s in sub.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
            for leaf, name in ([(l, [sub["commandName"], l["commandName"]]) for l in leaves] or [(sub, [sub["commandName"]])]):
                synopsis_line(leaf, name, out)
                out.append(".br")
        out.pop()
    else:
        synopsis_line(command, [], out)
    prose, examples, status = split_discussion(command.get("discussion", ""))
    out.append(".Sh DESCRIPTION")
    if not prose:
        out.append(escape(command.get("abstract", "")))
    for p in prose:
        render_paragraph(p, out)
    if subcommands:
        out.append(".Sh COMMANDS")
        out.append(".Bl -tag -width Ds")
        for sub in subcommands:
            leaves = [s for s in sub.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
            for leaf, name in ([(l, [sub["commandName"], l["commandName"]]) for l in leaves] or [(sub, [sub["commandName"]])]):
                out.append(".It Nm " + " ".join("Cm %s" % n for n in name))
                out.append(escape(leaf.get("abstract", "")))
                sub_prose, sub_examples, sub_status = split_discussion(leaf.get("discussion", ""))
                for p in sub_prose + sub_examples:
                    render_paragraph(p, out)
                if sub_status:
                    out.append(".Pp")
                    out.append(escape("Exit status: " + sub_status))
                args = [a for a in leaf.get("arguments", []) if not any(n["name"] in ("help", "version") for n in a.get("names", []))]
                if args:
                    out.append(".Pp")
                    render_options(args, out)
        out.append(".El")
    out.append(".Sh OPTIONS")
    render_options(command.get("arguments", []), out)
    if examples:
        out.append(".Sh EXAMPLES")
        for p in examples:
            if p.startswith("Examples:\n"):
                flush_literal([l[2:] if l.startswith("  ") else l for l in p.split("\n")[1:] if l.strip()], out)
            else:
                render_paragraph(p, out)
    for title, body in extra_sections(tool, root):
        out.append(".Sh " + title)
        for p in body:
            render_paragraph(p, out)
    text = all_text(command) + "\n" + "\n".join("\n".join(b) for _, b in extra_sections(tool, root))
    env = [name for name in ENVIRONMENT if re.search(r"(?<![A-Z_])\$?%s(?![A-Z_])" % name, text)]
    if "VFS_HOME" in env:
        env += [n for n in ("XDG_DATA_HOME", "HOME") if n not in env]
    if env:
        out.append(".Sh ENVIRONMENT")
        out.append(".Bl -tag -width Ds")
        for name in ENVIRONMENT:
            if name in env:
                out.append(".It Ev %s" % name)
                out.append(escape(ENVIRONMENT[name]))
        out.append(".El")
    if tool in FILES:
        out.append(".Sh FILES")
        out.append(".Bl -tag -width Ds")
        for path, what in FILES[tool]:
            out.append(".It Pa %s" % words(path))
            out.append(escape(what[0].upper() + what[1:] + "."))
        out.append(".El")
    if status:
        render_exit_status(status, out)
    # The overview first, then the tools the text names, then the peers.
    see = sorted(t for t in tools if t != tool and re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(t), text))
    see += [p for p in PEERS if re.search(r"(?<![\w./-])%s(?![\w-])" % re.escape(p), text)]
    see += SEE_ALSO.get(tool, [])
    if see or tools:
        out.append(".Sh SEE ALSO")
        xrs = ([".Xr vfs 7"] if tools else []) + [".Xr %s 1" % t for t in see]
        out.extend(x + " ," for x in xrs[:-1])
        out.append(xrs[-1])
    # groff's mdoc turns hyphenation back on at each section: off again after every one.
    lines = []
    for line in out:
        lines.append(line)
        if line.startswith(".Sh "):
            lines.append(".nh")
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    date = "2026-11-22"
    tools = []
    if args[:1] == ["--date"]:
        date, args = args[1], args[2:]
    if args[:1] == ["--tools"]:
        tools, args = args[1].split(), args[2:]
    tool, binary = args
    info = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.stdout.write(page(tool, info, date, root, tools))


main()
