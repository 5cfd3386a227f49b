"""The checks of UD's validator (``validate.py``, level 2) that a parser's enhanced output must
pass, re-implemented for the tests (the validator is not a dependency): DEPREL and enhanced
label patterns, HEAD 0 if and only if ``root`` (in HEAD/DEPREL and in DEPS), DEPS sorted and
without repeats or self-loops, heads that exist, empty nodes with HEAD and DEPREL ``_``, every
node reachable from 0 in DEPS; and, stricter than the validator, as UD treebanks have it:
exactly one ``0:root`` in DEPS per sentence, on the word whose HEAD is 0."""

from __future__ import annotations

import re

EDEPREL = re.compile(r"^[a-z]+(:[a-z]+)?(:[^\W\dA-Z_]+(_[^\W\dA-Z_]+)*)?(:[a-z]+)?$")
"""validate.py's ``edeprel_re`` (Unicode lowercase letters approximated by ``[^\\W\\dA-Z_]``)."""
DEPREL = re.compile(r"^[a-z]+(:[a-z]+)?$")


def problems(text: str) -> list[tuple]:
    """The violations in a CoNLL-U text, each a tuple (kind, node ID, ...)."""
    out: list[tuple] = []
    for block in text.strip("\n").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n") if line and not line.startswith("#")]
        nodes = [r for r in rows if "-" not in r[0]]
        ids = {r[0] for r in nodes}
        kids: dict[str, list[str]] = {}
        deps_roots = []
        for r in nodes:
            if "." in r[0]:
                if r[6] != "_" or r[7] != "_":
                    out.append(("empty node with HEAD or DEPREL", r[0]))
            else:
                if not DEPREL.match(r[7]):
                    out.append(("invalid DEPREL", r[0], r[7]))
                if (r[6] == "0") != (r[7] == "root"):
                    out.append(("HEAD 0 iff root", r[0], r[6], r[7]))
            if r[8] == "_":
                out.append(("no DEPS", r[0]))
                continue
            items = [i.split(":", 1) for i in r[8].split("|")]
            keys = [(float(h), l) for h, l in items]
            if keys != sorted(keys) or len(set(keys)) != len(keys):
                out.append(("DEPS unsorted or repeated", r[0], r[8]))
            for h, l in items:
                if not EDEPREL.match(l):
                    out.append(("invalid enhanced label", r[0], l))
                if h not in ids and h != "0":
                    out.append(("unknown enhanced head", r[0], h))
                if (h == "0") != (l == "root"):
                    out.append(("enhanced head 0 iff root", r[0], h, l))
                if h == r[0]:
                    out.append(("self-loop", r[0]))
                if h == "0":
                    deps_roots.append(r[0])
                kids.setdefault(h, []).append(r[0])
        tree_roots = [r[0] for r in nodes if "." not in r[0] and r[6] == "0"]
        if deps_roots != tree_roots or len(deps_roots) != 1:
            out.append(("one 0:root, on the tree's root", tree_roots, deps_roots))
        seen, todo = {"0"}, ["0"]
        while todo:
            for k in kids.get(todo.pop(), ()):
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
        if ids - seen:
            out.append(("unreachable from 0", sorted(ids - seen)))
    return out
