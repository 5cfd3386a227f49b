"""The front end's entry points: spec file or text to a checked IR system."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .. import ir
from ..errors import Diagnostic, DiagnosticSink, SpecSemanticError, SpecSyntaxError, Span, source_line
from . import syntax as S
from . import codes
from .chain import did_you_mean, is_file, load_chain, merge, packaged_namesake, packaged_root, resolve_extends
from .context import Context
from .lower import lower_system
from .parse import parse_file, parse_spec


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
    return check_spec(parse_file(p), overrides)


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
    return check_spec(parse_spec(text, file), overrides)


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
