"""Error types of tsdsl and their gcc-style rendering.

Every user mistake surfaces as a :class:`TsdslError` subclass whose ``str()`` is
``file:line:col: error[TS###]: message`` followed by the offending source line
and a caret, so the command line can print it without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

MAX_SHOWN_DIAGNOSTICS = 20


@dataclass(frozen=True)
class Span:
    """Where a piece of spec text came from (1-based line and column)."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        """``file:line:col``; just ``file`` for a whole file (line 0: a missing spec, say)."""
        return f"{self.file}:{self.line}:{self.col}" if self.line > 0 else self.file


NO_SPAN = Span("<none>", 0, 0)


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a spec: a stable code, a message and a location."""

    code: str
    message: str
    span: Span
    expected: tuple[str, ...] = ()
    source_line: Optional[str] = None

    def render(self) -> str:
        head = f"{self.span}: error[{self.code}]: {self.message}"
        lines = [head]
        if self.source_line is not None and self.span.line > 0:
            text, col = _shown(self.source_line.rstrip("\n"), self.span.col)
            lines.append(f"    {text}")
            lines.append("    " + _caret_prefix(text, col) + "^")
        if self.expected:
            lines.append("    expected one of: " + ", ".join(self.expected))
        return "\n".join(lines)


SHOWN_WIDTH = 160
"""The most characters of a source line a diagnostic shows (a window around the column)."""


def _shown(text: str, col: int) -> tuple[str, int]:
    """The source line as a diagnostic shows it, and the caret's column in it: characters a
    terminal would act on (control characters: a binary file read as a spec, an escape
    sequence) as U+FFFD, and a long line cut to a window around the column, marked with …."""
    text = "".join(ch if ch == "\t" or ch.isprintable() else "\ufffd" for ch in text)
    if len(text) <= SHOWN_WIDTH:
        return text, col
    start = max(0, min(col - 1 - SHOWN_WIDTH // 2, len(text) - SHOWN_WIDTH))
    window = text[start:start + SHOWN_WIDTH]
    return ("…" if start else "") + window + ("…" if start + SHOWN_WIDTH < len(text) else ""), col - start + (1 if start else 0)


def _caret_prefix(text: str, col: int) -> str:
    """Spaces (keeping tabs) so that a caret lands under column ``col``."""
    prefix = text[: max(col - 1, 0)]
    return "".join("\t" if ch == "\t" else " " for ch in prefix)


def source_line(text: str, line: int) -> Optional[str]:
    """The 1-based ``line`` of ``text``, or None when out of range."""
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


class TsdslError(Exception):
    """Base class of every error tsdsl reports to a user."""

    exit_code = 1


class SpecError(TsdslError):
    """A spec file is wrong; carries every diagnostic found, and a ``note`` (printed last,
    after ``note:``) on what the diagnostics rest on, such as semantic checks not run."""

    def __init__(self, diagnostics: Sequence[Diagnostic], note: str = ""):
        self.diagnostics = tuple(sorted(diagnostics, key=_diag_order))
        self.note = note
        super().__init__(self.render())

    def render(self) -> str:
        shown = self.diagnostics[:MAX_SHOWN_DIAGNOSTICS]
        parts = [d.render() for d in shown]
        hidden = len(self.diagnostics) - len(shown)
        if hidden > 0:
            parts.append(f"... and {hidden} more")
        if len(self.diagnostics) > 1:
            parts.append(f"{len(self.diagnostics)} errors")
        if self.note:
            parts.append(f"note: {self.note}")
        return "\n".join(parts)

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]


def _diag_order(d: Diagnostic):
    return (d.span.file, d.span.line, d.span.col, d.code)


class SpecSyntaxError(SpecError):
    """The spec text does not follow the grammar."""


class SpecSemanticError(SpecError):
    """The spec parses but says something impossible or inconsistent."""


class UsageError(TsdslError, ValueError):
    """A command-line or API argument is wrong (bad --set, unknown action...).  Also a
    ``ValueError``, as a numpy user expects of a bad argument to an API call."""

    exit_code = 2


class KernelBuildError(TsdslError):
    """Generating or compiling a kernel failed."""


class OracleError(TsdslError, ValueError):
    """An oracle was asked something it cannot answer: a spec that declares no oracle, an
    oracle or loss name it does not declare, the reachability rule of an oracle without one.
    Each is a mistake in what the caller asked for, so it is also a ``ValueError``, like
    :class:`UsageError` (``except ValueError`` catches every API argument error); the command
    line exits 1 on it, as before.  (A search over its budget is not an OracleError:
    ``tsdsl.verify.loss.BudgetExceeded``.)"""

    @classmethod
    def undeclared(cls, system) -> "OracleError":
        """``system`` (an ``ir.System``) declares no oracle: the error says how to get one,
        by writing the block or, for a single-head system, by having ``tsdsl derive-oracle``
        derive it from the spec and check it against the exact loss."""
        derive = "" if system.multihead else (f", or let `tsdsl derive-oracle {system.source_file}` derive one "
                                               "and print the block")
        return cls(f"{system.name} declares no fast oracle (add an `oracle` block to the spec{derive})")


@dataclass
class DiagnosticSink:
    """Collects diagnostics so that all problems are reported at once."""

    text: str = ""
    items: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Span, expected: Iterable[str] = ()) -> None:
        self.items.append(
            Diagnostic(code, message, span, tuple(expected), source_line(self.text, span.line))
        )

    def raise_if_any(self, cls=SpecSemanticError) -> None:
        if self.items:
            raise cls(self.items)
