"""Blocks of a generated markdown file that another benchmark owns.

``docs/results.md`` is written by ``bench/learn.py``; the section on predicted tags beside
UDPipe 1 is written into it by ``bench/tagging.py``.  Each such block sits between two HTML
comments naming it, so that either script can rewrite the file without losing the other's
figures: ``replace_block`` puts a block in (or refreshes it), ``blocks_of`` reads the blocks
of an existing file so that a script regenerating the whole file can carry them over.
"""

from __future__ import annotations

import re
from pathlib import Path

_BLOCK = re.compile(r"<!-- block (?P<name>[\w-]+): begin -->\n.*?<!-- block (?P=name): end -->\n", re.S)


def block(name: str, text: str) -> str:
    """``text`` wrapped as the block ``name``."""
    return f"<!-- block {name}: begin -->\n{text.rstrip()}\n<!-- block {name}: end -->\n"


def blocks_of(path: Path) -> list[str]:
    """The blocks of the file at ``path``, in order, wrapped (none if it does not exist)."""
    if not path.is_file():
        return []
    return [m.group(0) for m in _BLOCK.finditer(path.read_text(encoding="utf-8"))]


def replace_block(path: Path, name: str, text: str) -> None:
    """Write the block ``name`` into the file at ``path``: in place of its earlier version,
    else at the end."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    new = block(name, text)
    pattern = re.compile(rf"<!-- block {re.escape(name)}: begin -->\n.*?<!-- block {re.escape(name)}: end -->\n", re.S)
    if pattern.search(old):
        old = pattern.sub(lambda _: new, old, count=1)
    else:
        old = old.rstrip("\n") + ("\n\n" if old else "") + new
    path.write_text(old, encoding="utf-8")
