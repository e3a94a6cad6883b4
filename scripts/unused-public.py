#!/usr/bin/env python3
"""Lists the `public` declarations of a module that no other target names (issue 23 item 7).

usage: scripts/unused-public.py [--count] [MODULE...]   (default: every library module)

A declaration counts as used when its name appears, as a word, in the code (comments and
strings left out) of another target: Sources/, Fuzz/ and Tests/ outside the module's own
folder. A test file that `@testable import`s the module does not count (it sees internal
declarations too). A name also stays public when a public declaration that stays public
names it in its signature (a result type, a conformance). It is a word search, not a type
check: a member whose name is common elsewhere (`path`, `run`) counts as used, and protocol
witnesses (`description`, `init(from:)`…) and initializers are never listed; the compiler
has the last word.
Output: MODULE FILE:LINE KIND NAME (in TYPE); with --count, one line per module.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = {
    "VFSPolicyModel": "Sources/VFSPolicyModel",
    "VFSCore": "Sources/VFSCore",
    "VFSBundle": "Sources/VFSBundle",
    "VFSRelayProtocol": "Sources/VFSRelayProtocol",
    "VFSRelayServer": "Sources/VFSRelayServer",
    "VFSObjectStore": "Sources/VFSObjectStore",
    "VFSRelayClient": "Sources/VFSRelayClient",
    "VFSCommandLine": "Sources/VFSCommandLine",
    "VFSRelayCommandLine": "Sources/VFSRelayCommandLine",
    "VFSTestSupport": "Tests/Support",
}
# Names that witness a standard protocol's requirement: a public type keeps them public.
WITNESSES = {
    "description", "debugDescription", "errorDescription", "failureReason", "recoverySuggestion",
    "helpAnchor", "hash", "hashValue", "encode", "rawValue", "allCases", "id", "makeIterator",
    "makeAsyncIterator", "next", "run", "validate", "configuration", "helpMessage", "count",
    "startIndex", "endIndex", "index", "dummy", "respond", "handle", "callAsFunction",
    "withUnsafeBytes", "defaultValueDescription", "allValueStrings", "allValueDescriptions",
    "completionKind", "argument", "init", "subscript", "deinit",
    "coreContext", "requestDecoder", "responseEncoder",  # Hummingbird's RequestContext
}
TYPE_KINDS = {"class", "struct", "enum", "protocol", "actor", "extension"}
DECL = re.compile(
    r"\bpublic\b(?:\s+(?:final|static|class|override|mutating|nonmutating|nonisolated|indirect|convenience|required|"
    r"lazy|weak|unowned|dynamic|private\(set\)|fileprivate\(set\)|internal\(set\)|@\w+(?:\([^)]*\))?))*"
    r"\s+(class|struct|enum|protocol|actor|extension|typealias|func|var|let|init|subscript|case)\b\s*"
    r"([A-Za-z_][\w.]*|`\w+`|[^\s(<]+)?")
EXT = re.compile(r"^\s*(?:@\w+\s+)*extension\s+([\w.]+)")
TYPE_OPEN = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|package|final|indirect)\s+)*"
    r"(class|struct|enum|protocol|actor)\s+(\w+)")
REQUIREMENT = re.compile(r"^\s*(?:(?:static|mutating|nonisolated|@\w+)\s+)*(?:func|var|associatedtype)\s+(\w+)")
requirements = set()  # the names protocols of the module require: their witnesses stay public


_stripped = {}


def code_of(path):
    if path not in _stripped:
        _stripped[path] = strip(open(path, encoding="utf-8").read())
    return _stripped[path]


def strip(text):
    """The code of a Swift file with comments and string contents blanked, line count kept."""
    out, i, n = [], 0, len(text)
    state = None  # None, "line", "block", "str", "mstr"
    depth = 0
    while i < n:
        c = text[i]
        if state is None:
            if text.startswith("//", i):
                state = "line"; i += 2; continue
            if text.startswith("/*", i):
                state, depth = "block", 1; i += 2; continue
            if text.startswith('"""', i):
                state = "mstr"; out.append('""'); i += 3; continue
            if c == '"':
                state = "str"; out.append('"'); i += 1; continue
            out.append(c); i += 1
        elif state == "line":
            if c == "\n":
                state = None; out.append(c)
            i += 1
        elif state == "block":
            if text.startswith("/*", i):
                depth += 1; i += 2; continue
            if text.startswith("*/", i):
                depth -= 1; i += 2
                if depth == 0:
                    state = None
                continue
            if c == "\n":
                out.append(c)
            i += 1
        elif state in ("str", "mstr") and text.startswith("\\(", i):
            j, parens = i + 2, 1  # an interpolation is code
            while j < n and parens:
                parens += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            out.append(" " + text[i + 2:j - 1] + " ")
            i = j
        elif state == "str":
            if c == "\\":
                i += 2; continue
            if c == '"' or c == "\n":
                state = None; out.append(c)
            i += 1
        elif state == "mstr":
            if c == "\\":
                i += 2; continue
            if text.startswith('"""', i):
                state = None; out.append('"'); i += 3; continue
            if c == "\n":
                out.append(c)
            i += 1
    return "".join(out)


def swift_files(folder):
    for base, _, names in os.walk(os.path.join(ROOT, folder)):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


_declarations = {}


def declarations(folder):
    if folder not in _declarations:
        _declarations[folder] = scan(folder)
    return _declarations[folder]


def scan(folder):
    """(file, line, kind, name, container, signature, extension-is-public) for every public declaration."""
    decls = []
    for path in swift_files(folder):
        code = code_of(path)
        stack = []  # (container name, brace depth at which it opened, is public extension)
        depth = 0
        pending = None
        lines = code.split("\n")
        for number, line in enumerate(lines, 1):
            container = stack[-1][0] if stack else None
            if stack and stack[-1][3] and stack[-1][1] == depth:
                req = REQUIREMENT.match(line)
                if req:
                    requirements.add(req.group(1))
                    decls.append((path, number, "requirement", req.group(1), container, line.split("{")[0]))
            public_ext = bool(stack) and stack[-1][2]
            if stack and stack[-1][1] == depth and re.match(r"^\s*(?:indirect\s+)?case\s+\w+\s*\(", line):
                # an enum case's associated values are as public as its enum
                decls.append((path, number, "requirement", "case", container, line))
            ext = EXT.match(line)
            opened = TYPE_OPEN.match(line)
            for m in DECL.finditer(line):
                kind, name = m.group(1), (m.group(2) or "").strip("`")
                if kind == "extension":
                    name = name.split(".")[-1]
                sig = line[m.start():].split("{")[0]
                more = number
                while sig.count("(") > sig.count(")") and more < len(lines):  # a signature on several lines
                    sig += " " + lines[more].split("{")[0]
                    more += 1
                decls.append((path, number, kind, name, container, sig))
            if not DECL.search(line) and public_ext:
                for m in re.finditer(r"^\s*(?:(?:static|mutating|nonisolated|@\w+)\s+)*(func|var|let|init|subscript)\b\s*(\w+)?", line):
                    decls.append((path, number, "member-of-public-extension", m.group(2) or m.group(1), container,
                                  line.split("{")[0]))
            if ext:
                pending = (ext.group(1).split(".")[-1], bool(re.search(r"\bpublic\s+extension\b", line)), False)
            elif opened:
                pending = (opened.group(2), False, opened.group(1) == "protocol")
            for c in line:
                if c == "{":
                    depth += 1
                    if pending:
                        stack.append((pending[0], depth, pending[1], pending[2]))
                        pending = None
                elif c == "}":
                    if stack and stack[-1][1] == depth:
                        stack.pop()
                    depth -= 1
    return decls


def outside_words(module, folder):
    """Every word in the code of the other targets, but for test files that @testable import the module."""
    words = set()
    testable = re.compile(r"^\s*@testable\s+import\s+" + module + r"\b", re.M)
    for top in ("Sources", "Tests", "Fuzz"):
        for path in swift_files(top):
            if path.startswith(os.path.join(ROOT, folder) + os.sep):
                continue
            text = open(path, encoding="utf-8").read()
            if top == "Tests" and not path.startswith(os.path.join(ROOT, "Tests/Support") + os.sep) \
                    and testable.search(text):
                continue
            words.update(re.findall(r"[A-Za-z_]\w*", code_of(path)))
    return words


def unused(module):
    folder = MODULES[module]
    decls = declarations(folder)
    used = outside_words(module, folder)
    types = {d[3] for d in decls if d[2] in TYPE_KINDS - {"extension"} or d[2] == "typealias"}

    def candidate(d, internal):
        kind, name, container = d[2], d[3], d[4]
        if kind == "requirement":
            return False  # no keyword of its own; its signature keeps names public
        if kind == "extension":
            return name in internal
        if kind in TYPE_KINDS or kind == "typealias":
            return name in internal
        if container in internal:
            return True  # a member of a type that goes internal
        if kind == "member-of-public-extension":
            return False
        if kind in ("init", "subscript", "case") or name in WITNESSES or name in requirements or not re.match(r"\w+$", name):
            return False
        if container is not None and container not in types:
            return False  # a member of an extension of another module's type: may witness its protocols
        return name not in used

    # A type a kept public signature names stays public, and so does a member a kept
    # default argument names; repeat until nothing changes.
    internal = {t for t in types if t not in used}
    defaults = set()
    while True:
        cands = [d for d in decls if candidate(d, internal) and (d[4] in internal or d[3] not in defaults)]
        kept = [d for d in decls if d not in cands and not (d[2] == "requirement" and d[4] in internal)]
        sig_words, new_defaults = set(), set()
        for d in kept:
            sig_words.update(re.findall(r"[A-Za-z_]\w*", d[5].split("=")[0] if d[2] in ("var", "let") else d[5]))
            if d[2] in ("func", "init", "subscript"):
                for value in d[5].split("=")[1:]:
                    new_defaults.update(re.findall(r"[A-Za-z_]\w*", value))
        if internal - sig_words == internal and new_defaults == defaults:
            break
        internal, defaults = internal - sig_words, new_defaults
    return sorted(cands, key=lambda d: (d[0], d[1]))


def main(argv):
    count = "--count" in argv
    names = [a for a in argv if not a.startswith("--")] or list(MODULES)
    for folder in MODULES.values():
        declarations(folder)  # every module's protocol requirements first
    for module in names:
        found = unused(module)
        if count:
            total = len([d for d in _declarations[MODULES[module]] if d[2] != "requirement"])
            print(f"{module}: {len(found)} of {total} public declarations unused outside")
            continue
        for path, number, kind, name, container, _ in found:
            where = f" (in {container})" if container else ""
            print(f"{module} {os.path.relpath(path, ROOT)}:{number} {kind} {name}{where}")


if __name__ == "__main__":
    main(sys.argv[1:])
