"""Checks the relay's OpenAPI document (a URL or a path, the first argument)
(Tests/EndToEndTests/OpenAPITests.swift).

A YAML parser (PyYAML) reads it and openapi-spec-validator (PyPI, pinned in the Makefile)
holds it to OpenAPI 3.1. Then the text itself: YAML ends a plain scalar in a flow mapping
at a comma (`{ description: No such upload, or it expired. }` is the description "No
such upload" and a key "or it expired."), so no description may be cut short: every one
ends a sentence, and no mapping has a key that is a phrase without a value. Prints each
problem on a line; exits 1 when there is one.
"""
import sys
import urllib.request

import yaml
from openapi_spec_validator import validate

source = sys.argv[1]
if source.startswith("http://") or source.startswith("https://"):
    with urllib.request.urlopen(source, timeout=60) as answer:
        text = answer.read().decode("utf-8")
else:
    with open(source, encoding="utf-8") as file:
        text = file.read()

problems = []
document = yaml.safe_load(text)
try:
    validate(document)
except Exception as error:  # the validator's own error says where and why
    problems.append(f"not valid OpenAPI: {error}".splitlines()[0])


def walk(node, path):
    if isinstance(node, dict):
        for key, value in node.items():
            where = path + [str(key)]
            if key == "description" and isinstance(value, str):
                if not value.strip().endswith((".", "?", "!", ":")):
                    problems.append(f"{'/'.join(where)}: cut short or not a sentence: {value.strip()[-60:]!r}")
            if value is None and isinstance(key, str) and " " in key.strip():
                problems.append(f"{'/'.join(path)}: a phrase taken for a key (a comma in a plain scalar?): {key!r}")
            walk(value, where)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            walk(value, path + [str(index)])


walk(document, [])
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
