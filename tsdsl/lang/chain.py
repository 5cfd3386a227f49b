"""A spec and its `extends` chain: loading the ancestors and merging their statements
(a child replaces or drops what it inherits)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..errors import DiagnosticSink, Span
from . import codes
from . import syntax as S
from .hints import close_names
from .parse import parse_file


@dataclass
class Merged:
    """The statements in force after applying every `extends` (parents first)."""

    name: str = ""
    title: Optional[str] = None
    header_span: Span = field(default_factory=lambda: Span("<none>", 0, 0))
    singles: dict = field(default_factory=dict)  # key -> statement
    params: dict = field(default_factory=dict)  # name -> Param
    flags: dict = field(default_factory=dict)  # name -> FlagDecl
    transitions: dict = field(default_factory=dict)  # name -> CPTransition | RuleTransition
    oracles: dict = field(default_factory=dict)  # name -> [OracleDecl, rules...]
    texts: list = field(default_factory=list)
    files: list = field(default_factory=list)


_SINGLE_KEYS = {
    S.Cite: "cite", S.Claim: "claim", S.Produces: "produces", S.RootPos: "root", S.Periphery: "periphery",
    S.Multihead: "multihead", S.ListsDecl: "lists", S.Initial: "initial", S.Terminal: "terminal",
    S.Finally: "finally",
}


def load_chain(spec: S.Spec, sink: DiagnosticSink, seen: tuple[str, ...] = ()) -> list[S.Spec]:
    """The spec and its ancestors, root ancestor first."""
    ext = [st for st in spec.statements if isinstance(st, S.Extends)]
    if len(ext) > 1:
        sink.error(codes.EXTENDS_TWICE, "`extends` given more than once", ext[1].span)
    if not ext:
        return [spec]
    st = ext[0]
    base = Path(spec.file).parent if spec.file not in ("<spec>", "<string>") else Path.cwd()
    target = resolve_extends(st.path, base)
    if target is None:
        sink.error(codes.EXTENDS, f"cannot find the extended spec {st.path!r}" + did_you_mean(st.path, base),
                   st.span)
        return [spec]
    key = str(target.resolve())
    if key in seen or key == str(Path(spec.file).resolve()):
        sink.error(codes.EXTENDS, f"`extends` cycle through {st.path!r}", st.span)
        return [spec]
    parent = parse_file(target)
    return load_chain(parent, sink, seen + (key,)) + [spec]


def packaged_root() -> Optional[Path]:
    """The folder of the packaged specs next to this module: ``tsdsl/systems`` when tsdsl is
    installed, else (a source checkout run with its root on ``sys.path``) the repository's
    ``systems/`` folder, which pyproject.toml installs as that package.  Only then the
    ``tsdsl.systems`` resource, which an editable install maps to *its* checkout: another
    checkout run with PYTHONPATH must not load that one's specs (as ``parse.grammar_path``)."""
    package = Path(__file__).resolve().parents[1]
    for cand in (package / "systems", package.parent / "systems"):
        if (cand / "arc-eager.ts").is_file():
            return cand
    try:
        from importlib.resources import files

        return Path(str(files("tsdsl.systems")))
    except ModuleNotFoundError:
        return None


def resolve_extends(name: str, base: Path) -> Optional[Path]:
    for cand in (base / name, base / f"{name}.ts", Path(name)):
        if is_file(cand):
            return cand
    root = packaged_root()
    if root is not None:
        packaged = root / (name if name.endswith(".ts") else f"{name}.ts")
        if is_file(packaged):
            return packaged
    return None


def did_you_mean(name: str, base: Path) -> str:
    """``"; did you mean `arc-eager`?"`` for a spec name or path that was not found: the
    closest packaged system name (readings included) and ``.ts`` file beside the path, or
    ``""`` when nothing is close."""
    import difflib

    stem = name[:-3] if name.endswith(".ts") else name
    candidates: dict[str, str] = {}  # what is compared -> what is shown
    try:
        root = packaged_root()
        for p in (list(root.glob("*.ts")) + list(root.glob("readings/*.ts"))) if root is not None else []:
            shown = p.relative_to(root).with_suffix("").as_posix()
            candidates[shown] = shown
    except OSError:
        pass
    folder = Path(name).parent
    try:
        siblings = list((base / folder).glob("*.ts")) if str(folder) not in ("", ".") or name.endswith(".ts") else []
    except OSError:
        siblings = []
    for p in siblings:
        shown = (folder / p.name).as_posix() if str(folder) not in ("", ".") else p.name
        candidates[shown[:-3]] = shown
    close = difflib.get_close_matches(stem, list(candidates), n=1, cutoff=0.75)
    if not close:
        return ""
    return f"; did you mean `{candidates[close[0]]}`?"


def packaged_namesake(name: str) -> Optional[str]:
    """The packaged system whose name a missing spec path ends in (``systems/arc-eager.ts``:
    ``arc-eager``; ``x/readings/arc-hybrid-literal.ts``: ``readings/arc-hybrid-literal``), or
    None.  The docs' paths are relative to the repository root: after ``pip install``, run
    elsewhere, they name no file, while the name would load the same spec."""
    path = Path(name)
    stem = path.name[:-3] if path.name.endswith(".ts") else path.name
    root = packaged_root()
    if root is None or not stem:
        return None
    tried = ([f"readings/{stem}"] if path.parent.name == "readings" else []) + [stem, f"readings/{stem}"]
    return next((t for t in tried if t != name and is_file(root / f"{t}.ts")), None)


def is_file(p) -> bool:
    """``p.is_file()``, false instead of an OSError (name too long, permission denied...)."""
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def merge(chain: list[S.Spec], sink: DiagnosticSink) -> Merged:
    m = Merged()
    for spec in chain:
        sink.text = spec.text
        m.name, m.header_span = spec.name, spec.span
        m.title = spec.title if spec.title is not None else m.title
        m.texts.append(spec.text)
        m.files.append(spec.file)
        seen_here: dict[str, Span] = {}
        current_oracle: Optional[str] = None

        def once(key: str, span: Span) -> None:
            if key in seen_here:
                sink.error(codes.TWICE, f"{key} is declared twice in this file (first at line "
                                        f"{seen_here[key].line})", span)
            seen_here[key] = span

        for st in spec.statements:
            if isinstance(st, S.Extends):
                continue
            if type(st) in _SINGLE_KEYS:
                key = _SINGLE_KEYS[type(st)]
                once(key, st.span)
                m.singles[key] = st
            elif isinstance(st, S.Setting):
                once(st.key, st.span)
                m.singles[st.key] = st
            elif isinstance(st, S.Param):
                once(f"parameter {st.name!r}", st.span)
                m.params[st.name] = st
            elif isinstance(st, S.FlagDecl):
                once(f"flag {st.name!r}", st.span)
                m.flags[st.name] = st
            elif isinstance(st, (S.CPTransition, S.RuleTransition)):
                twice = f"transition {st.name!r}" in seen_here
                once(f"transition {st.name!r}", st.span)
                # as for oracles below: a second one of the same name is an error, but both are
                # lowered, so that the problems inside the first one are reported too
                m.transitions[f"{st.name}\0{st.span.line}" if twice else st.name] = st
            elif isinstance(st, S.OracleDecl):
                twice = f"oracle {st.name!r}" in seen_here
                once(f"oracle {st.name!r}", st.span)
                if current_oracle is None:  # a file that declares oracles replaces the inherited ones
                    m.oracles = {}
                # a second block of the same name is an error, but both are lowered, so that the
                # problems inside the first one are reported too (every problem at once)
                current_oracle = f"{st.name}\0{st.span.line}" if twice else st.name
                m.oracles[current_oracle] = [st]
            elif isinstance(st, (S.ReachRule, S.LossRule, S.PenaltyRule)):
                if current_oracle is None:
                    sink.error(codes.ORACLE_RULE_OUTSIDE, "oracle rules must follow an `oracle NAME` line", st.span)
                else:
                    m.oracles[current_oracle].append(st)
            elif isinstance(st, S.Drop):
                if st.name in m.transitions:
                    del m.transitions[st.name]
                elif st.name in m.oracles:
                    del m.oracles[st.name]
                else:
                    names = [*m.transitions, *m.oracles]
                    near = close_names(st.name, names, n=3) or (
                        f"; the transitions and oracles are {', '.join(names)}" if names else "")
                    sink.error(codes.DROP, f"cannot drop {st.name!r}: no such transition or oracle{near}", st.span)
    return m
