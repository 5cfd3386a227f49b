"""The front end's entry points: spec file or text to a checked IR system."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .. import ir
from ..errors import Diagnostic, DiagnosticSink, SpecSemanticError, SpecSyntaxError, Span, UsageError, source_line
from . import syntax as S
from . import codes
from .chain import did_you_mean, is_file, load_chain, merge, packaged_namesake, packaged_root, resolve_extends
from .context import Context
from .lower import lower_system
from .parse import MAX_SYNTAX_ERRORS, ParseResult, parse_spec_recovering, read_spec_text
from .recover import Skipped, blocking, knock_on


def load_system(path: str | Path, overrides: Optional[dict[str, int | None]] = None) -> ir.System:
    """Parse, check and lower the spec at ``path``.

    Args:
        path: a ``.ts`` file, or the stem of a packaged system such as ``"arc-eager"``.
        overrides: parameter values from the command line (``{"K": 4}``); ``None`` means inf.

    Raises:
        SpecSyntaxError, SpecSemanticError: the spec is wrong (all problems at once).
        UsageError: an override names an unknown parameter.
    """
    p = Path(path)
    if not is_file(p):
        packaged = resolve_extends(str(path), Path.cwd())
        if packaged is not None:
            p = packaged
        elif not p.exists():
            namesake = packaged_namesake(str(path))
            if namesake is not None:  # a docs' path run outside the repository, say
                where = "" if p.is_absolute() else ", or run from the repository root"
                raise SpecSyntaxError([Diagnostic(codes.UNREADABLE, "no such spec file (the packaged system of that "
                                                  f"name is `{namesake}`: pass the name{where})",
                                                  Span(str(path), 0, 0))])
            hint = did_you_mean(str(path), Path.cwd())
            if hint:  # a mistyped name or path: say what it probably meant
                raise SpecSyntaxError([Diagnostic(codes.UNREADABLE, "no such spec file or packaged system" + hint,
                                                  Span(str(path), 0, 0))])
    return _check_text(read_spec_text(p), str(p), overrides)


def packaged_systems(readings: bool = False) -> list[tuple[str, Path]]:
    """The specs installed with the package, by the name commands accept (``arc-eager``,
    ``readings/arc-hybrid-literal``), sorted."""
    root = packaged_root()
    if root is None:
        return []
    found = list(root.glob("*.ts")) + (list(root.glob("readings/*.ts")) if readings else [])
    return sorted((p.relative_to(root).with_suffix("").as_posix(), p) for p in found)


def load_system_text(text: str, file: str = "<string>", overrides=None) -> ir.System:
    """Like :func:`load_system` for spec text held in memory."""
    return _check_text(text, file, overrides)


def _check_text(text: str, file: str, overrides) -> ir.System:
    """Parse and check spec text.  With syntax errors, the statements without one are still
    checked where they can be (:mod:`.recover`), and one SpecSyntaxError reports both."""
    result = parse_spec_recovering(text, file)
    if result.errors:
        raise _syntax_report(result, overrides)
    try:
        return check_spec(result.spec, overrides)
    except SpecSyntaxError as exc:  # an extended file's syntax errors
        if exc.note or not any(d.code in (codes.SYNTAX, codes.TOO_DEEP) for d in exc.diagnostics):
            raise
        fix = "fix the syntax error" if len(exc.diagnostics) == 1 else "fix the syntax errors"
        raise SpecSyntaxError(exc.diagnostics, f"semantic checks were not run: {fix} and check again") from None


def _syntax_report(result: ParseResult, overrides) -> SpecSyntaxError:
    """The syntax errors of ``result`` with the semantic errors of the rest of the file, when
    it can be checked without the skipped statements (leaving out those that may only follow
    from a skipped statement being missing); the note says which of the two it is."""
    errors = list(result.errors)
    fix = "fix the syntax error and check again" if len(errors) == 1 else "fix the syntax errors and check again"
    if result.spec is None:
        stopped = f" (the parse stopped after {len(errors)} syntax errors)" if len(errors) >= MAX_SYNTAX_ERRORS else ""
        return SpecSyntaxError(errors, f"semantic checks were not run{stopped}: {fix}")
    block = blocking(list(result.skipped), result.spec)
    if block is not None:
        return SpecSyntaxError(errors, f"semantic checks were not run: {_why_blocked(block)}; {fix}")
    try:
        check_spec(result.spec, overrides)
    except SpecSemanticError as exc:
        errors += [d for d in exc.diagnostics if not knock_on(d, list(result.skipped))]
    except SpecSyntaxError as exc:  # an extended file's syntax errors: nothing could be checked
        return SpecSyntaxError(errors + list(exc.diagnostics), f"semantic checks were not run: {fix}")
    except UsageError:  # a bad --set is reported once the spec parses
        pass
    skipped = ("the statement with a syntax error was skipped and the rest of the file checked without it"
               if len(result.skipped) == 1 else
               "the statements with syntax errors were skipped and the rest of the file checked without them")
    return SpecSyntaxError(errors, skipped)


def _why_blocked(s: Skipped) -> str:
    """Why the rest of a file is not checked without the skipped statement ``s``."""
    if s.kind == "unknown":
        return f"line {s.line} does not show which statement it is, and the rest may depend on it"
    if s.kind == "transition":
        return f"without the transition on line {s.line}, the file would be read in the other style"
    return f"the `{s.kind}` statement on line {s.line} may declare what the rest of the file depends on"


def check_spec(spec: S.Spec, overrides: Optional[dict[str, int | None]] = None) -> ir.System:
    """Check an AST (and its ancestors) and lower it to the IR."""
    sink = DiagnosticSink(spec.text)
    chain = load_chain(spec, sink)
    merged = merge(chain, sink)
    sink.text = spec.text
    texts = {s.file: s.text for s in chain}
    system = lower_system(Context(merged, sink, texts, dict(overrides or {})))
    if sink.items:
        # locate each diagnostic's source line in the file it points at
        fixed = [
            Diagnostic(d.code, d.message, d.span, d.expected, source_line(texts.get(d.span.file, ""), d.span.line))
            for d in sink.items
        ]
        raise SpecSemanticError(fixed)
    return system
