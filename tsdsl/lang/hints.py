"""Hints added to a syntax error when the failing line looks like a known slip: a near
miss of a statement keyword (``produce projective``), or a transition continued on the
next line (a statement ends at the end of its line).  Plain text in, text out: the parser
(:mod:`tsdsl.lang.parse`) decides when to ask.  :func:`close_names` is the near-miss
suggestion every lowering error about an unknown name uses (functions, flags, loss terms,
dropped transitions)."""

from __future__ import annotations

import difflib
import re

STATEMENT_KEYWORDS = ("cite", "claim", "produces", "covers", "root", "extends", "param", "capacity", "distance",
                      "start", "periphery", "multihead", "flag", "lists", "initial", "terminal", "finally", "drop",
                      "oracle", "reachable", "unreachable", "loss", "penalty")
"""The words that open a statement (grammars/ts.lark); any other first word names a transition."""

# Words that only continue a transition (its clauses, and the guard's operators): a line
# opening with one of them was read as a new transition named so, which then lacks : or =.
CLAUSE_WORDS = ("if", "and", "or", "not", "arc", "then", "class")
AFTER_A_NAME = {"':'", "'='"}  # what the parser expects after a statement's first name
_WORD = re.compile(r"[^\W\d][\w]*(?:-[^\W_][\w]*)*")
_TRANSITION = re.compile(r"\s*(?:\||(" + _WORD.pattern + r")\s*[:=])")


def keyword_hint(line_text: str) -> str:
    """``"; did you mean the keyword `produces`?"`` when the failing line opens with a near
    miss of a statement keyword (``produce projective``): the parser then read the word as
    a transition's name and can only say that ``:`` or ``=`` was expected."""
    words = line_text.split()
    if len(words) < 2 or words[0] in STATEMENT_KEYWORDS:
        return ""
    close = difflib.get_close_matches(words[0], STATEMENT_KEYWORDS, n=1, cutoff=0.75)
    return f"; did you mean the keyword `{close[0]}`?" if close else ""


def continuation_hint(text: str, line: int, col: int, expected) -> str:
    """``"; a transition must fit on one line ..."`` when the error is on a line that
    continues the transition on the line before: the line opens with a clause word
    (``if has_head(b)``) and the error is right after it, where the parser wanted the
    ``:`` or ``=`` of a transition named ``if``; or the line opens with ``(`` or ``=>``
    (a case without its ``|``) and the error is that first token.  The line before
    (blank and comment lines skipped) must be a transition or one of its ``|`` cases."""
    lines = text.splitlines()
    if not 1 < line <= len(lines):
        return ""
    here = lines[line - 1]
    before_error = here[: col - 1]
    prev = _previous_statement(lines, line)
    if prev is None:
        return ""
    m = _TRANSITION.match(lines[prev - 1])
    if m is None or (m.group(1) or "") in STATEMENT_KEYWORDS:
        return ""
    words = before_error.split()
    expected = set(expected)
    if len(words) == 1 and words[0] in CLAUSE_WORDS and expected and expected <= AFTER_A_NAME:
        what = {"arc": "an `arc` clause", "then": "a `then` clause", "class": "a `class` clause"}.get(words[0], "a guard")
        return f"; a transition must fit on one line, and {what} cannot continue line {prev}"
    rest = here[col - 1:]
    if not words and rest.startswith(("(", "=>", "⇒")) and "a name" in expected:
        return (f"; a transition must fit on one line, and another case of the rule on line {prev} goes on a new "
                "line that starts with `|`")
    return ""


def _previous_statement(lines: list[str], line: int):
    """The number of the last line before ``line`` that is not blank or a comment."""
    for k in range(line - 1, 0, -1):
        s = lines[k - 1].strip()
        if s and not s.startswith("#"):
            return k
    return None


def close_names(name: str, known, n: int = 1, cutoff: float = 0.6) -> str:
    """`` (did you mean `done`?)`` when ``name`` is a near miss of one (or, with ``n`` > 1, some)
    of ``known``; empty otherwise.  A typo is the likeliest cause of an unknown name, and the
    closest names say which one was meant faster than a full list."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=n, cutoff=cutoff)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"`{c}`" for c in close) + "?)"
