"""Going on past a syntax error: which lines make up the statement that holds it, and which
semantic diagnostics of the rest of the file can be trusted once that statement is skipped.

The language is line-oriented: a statement is one line, and a rewrite rule's further cases
are continuation lines that begin with ``|``.  The parser skips a statement with a syntax
error by blanking its lines (keeping every line and column of the others) and parses the
rest again.  Whether the rest may then be checked depends on what the skipped statement
was: the rest of a file does not depend on a `cite` or a `penalty`, and depends on a
transition only through its name; but a `lists`, `param`, `flag`, `extends`, `oracle` line
(or a line whose statement cannot be told) may declare what every other line is read
against, and checking without it would report mistakes that are not there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ..errors import Diagnostic
from . import codes
from . import syntax as S

# statements the rest of a file never depends on (what they say is theirs alone)
_LOCAL = ("cite", "claim", "produces", "finally", "loss", "penalty")
_REACH = ("reachable", "unreachable")
KEYWORDS = ("system", "cite", "claim", "produces", "root", "extends", "param", "capacity", "distance", "start",
            "periphery", "multihead", "flag", "lists", "initial", "terminal", "finally", "drop", "oracle",
            "reachable", "unreachable", "loss", "penalty")
_WORD = re.compile(r"\s*([^\W\d][\w]*(?:-[^\W_][\w]*)*)\s*(:|=|\()?")


def _is_continuation(line: str) -> bool:
    return line.lstrip(" \t").startswith("|")


def _is_blank(line: str) -> bool:
    stripped = line.strip(" \t\r")
    return not stripped or stripped.startswith("#")


def statement_lines(text: str, line: int) -> Optional[tuple[int, int]]:
    """The first and last line (1-based) of the statement that holds ``line``: that line, or
    the line its ``|`` continuation belongs to, with the continuation lines after it.
    ``None`` when it is the ``system`` header (or before it): nothing can be skipped there."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    start = line
    while start > 1 and (_is_continuation(lines[start - 1]) or _is_blank(lines[start - 1])):
        start -= 1
    header = next((k for k, ln in enumerate(lines, 1) if not _is_blank(ln)), None)
    if header is None or start <= header or _is_blank(lines[start - 1]):
        return None
    end = start
    while end < len(lines) and (_is_continuation(lines[end]) or _is_blank(lines[end])):
        end += 1
    return start, end


def blank_lines(text: str, first: int, last: int) -> str:
    """``text`` with lines ``first``..``last`` emptied; the other lines keep their numbers."""
    lines = text.split("\n")
    for k in range(first - 1, last):
        lines[k] = ""
    return "\n".join(lines)


@dataclass(frozen=True)
class Skipped:
    """A statement skipped for a syntax error: its first line, the keyword it begins with
    (``"transition"`` for a transition), the transition's name and style (``"cp"`` or
    ``"rewrite"``), and whether the rest of the file may be checked without it."""

    line: int
    kind: str
    name: Optional[str] = None
    style: Optional[str] = None

    @property
    def checkable(self) -> bool:
        return self.kind in _LOCAL or self.kind in _REACH or (self.kind == "transition" and self.name is not None)


def classify(text: str, first: int) -> Skipped:
    """What the statement that begins on line ``first`` of ``text`` was meant to be, as far
    as its first words tell."""
    m = _WORD.match(text.split("\n")[first - 1])
    if m is None:
        return Skipped(first, "unknown")
    word, sep = m.group(1), m.group(2)
    if word in KEYWORDS:
        return Skipped(first, word)
    if sep is None:
        return Skipped(first, "unknown")
    return Skipped(first, "transition", word, "cp" if sep == "=" else "rewrite")


def blocking(skipped: list[Skipped], spec: S.Spec) -> Optional[Skipped]:
    """The first skipped statement the rest of ``spec`` cannot be checked without, if any: one
    that may declare what other lines are read against, or a transition of the other style
    than the transitions left (without it, the file would be read in another style)."""
    left = {"cp" if isinstance(t, S.CPTransition) else "rewrite"
            for t in spec.statements if isinstance(t, (S.CPTransition, S.RuleTransition))}
    for s in skipped:
        if not s.checkable or (s.kind == "transition" and left - {s.style}):
            return s
    return None


def knock_on(d: Diagnostic, skipped: list[Skipped]) -> bool:
    """Whether diagnostic ``d`` may come only from a skipped statement being missing: with a
    transition gone, the file may have none or seem to mix styles, and whatever names the
    transition (a `drop`, a `penalty`, a duplicate) has nothing to name; with a
    reachability rule gone, its oracle has none."""
    for s in skipped:
        if s.kind == "transition" and (d.code in (codes.NO_TRANSITIONS, codes.MIXED_STYLES)
                                       or re.search(f"'{re.escape(s.name)}['(]", d.message)):
            return True
        if s.kind in _REACH and d.code == codes.ORACLE_WITHOUT_REACH:
            return True
    return False
