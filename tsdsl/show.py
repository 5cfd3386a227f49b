"""Readable and JSON renderings of a lowered system (what `tsdsl show` prints)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from . import ir


JSON_FORMAT = 1
"""The version of the ``show --json`` layout (its ``format`` key), documented in docs/cli.md;
raised when a key changes meaning or goes away (new keys do not raise it)."""

PACKAGED = "packaged:"
"""How JSON names a packaged spec file: ``packaged:`` and its path in the packaged folder."""


def stable_path(file: str, home: str) -> str:
    """How ``show --json`` names a spec file, the same from any working directory and
    installation: a packaged spec as ``packaged:NAME.ts`` (``packaged:readings/NAME.ts``),
    the shown spec ``home`` by its file name, another (a parent it extends) by its path
    relative to ``home``'s folder."""
    from .lang.chain import packaged_root

    path = Path(file).resolve()
    root = packaged_root()
    if root is not None:
        try:
            return PACKAGED + path.relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    if path == Path(home).resolve():
        return path.name
    try:
        return Path(os.path.relpath(path, Path(home).resolve().parent)).as_posix()
    except ValueError:  # another drive
        return path.as_posix()


def _loc(span, home: str) -> str:
    return f"{stable_path(span.file, home)}:{span.line}"


def _relative(file: str, home: str) -> str:
    """``file`` as a path relative to the folder of the spec file ``home`` (as given when
    that is shorter or no relative path exists)."""
    try:
        rel = os.path.relpath(file, os.path.dirname(home) or ".")
    except ValueError:  # another drive
        return file
    return rel if len(rel) < len(file) else file


def _where(span, home: str) -> str:
    """Where a piece of the spec is, for the text rendering, whose header names the spec
    file once: ``line N`` in it, else ``FILE:N`` relative to its folder (a parent spec)."""
    if span.file == home:
        return f"line {span.line}"
    return f"{_relative(span.file, home)}:{span.line}"


def _file_line(system: ir.System) -> str:
    """The header's ``file`` line: the spec file, and the specs it extends, parents first."""
    home = system.source_file
    parents = [_relative(f, home) for f in system.sources if f != home]
    return f"  file       {home}" + (f" (extends {', '.join(parents)})" if parents else "")


def _match_text(system: ir.System, match: tuple[ir.ListMatch, ...]) -> str:
    return "(" + ", ".join(ir.items_text(m.items) for m in match) + ")"


def _result_text(system: ir.System, result) -> str:
    return "(" + ", ".join(ir.items_text(items) for items in result) + ")"


def _arc_text(op: ir.ArcOp) -> str:
    opts = [o for o, on in (("overwrite", op.overwrite), ("break_cycle", op.break_cycle),
                            ("unlabeled", not op.labeled)) if on]
    return f"{op.head} -> {op.dep}" + ("  " + " ".join(opts) if opts else "")


def _set_text(s: ir.SetFlag) -> str:
    target = f"{s.flag}[{s.var}]" if s.var else s.flag
    return f"{target} := {ir.pred_text(s.value)}"


def render_text(system: ir.System, n: Optional[int] = None) -> str:
    """Every instantiated action with its cases, guards (explicit and implicit) and effects."""
    lines = [
        f"system {system.name}: {system.title}",
        _file_line(system),
        f"  cite       {system.cite or '-'}",
        *([f"  claim      {system.claim}"] if system.claim else []),
        f"  style      {system.style}",
        f"  produces   {system.produces}" + (f" (covers {system.covers})" if system.covers != system.produces else ""),
        f"  root       {system.root}",
        f"  lists      " + ", ".join(f"{d.name} (open {'right' if d.open_end == 'R' else 'left'})"
                                      for d in system.lists),
    ]
    if system.params:
        lines.append("  params     " + ", ".join(f"{k}={_num(v)}" for k, v in system.params))
    if system.settings:
        lines.append("  settings   " + ", ".join(f"{k}={_num(v) if not isinstance(v, str) else v}"
                                                 for k, v in system.settings))
    if system.token_flags or system.global_flags:
        flags = [f"{k}[token]={str(v).lower()}" for k, v in system.token_flags]
        flags += [f"{k}={str(v).lower()}" for k, v in system.global_flags]
        lines.append("  flags      " + ", ".join(flags))
    if system.multihead:
        lines.append("  multihead  yes (no single-head rule)")
    init = ", ".join("[" + "|".join("1..n" if i == "words" else i for i in items) + "]"
                     for items in system.initial.lists)
    split = f"  then split after {system.initial.split} tokens" if system.initial.split is not None and \
        system.initial.split < 10**9 else ""
    lines.append(f"  initial    ({init}){split}")
    t = system.terminal
    guard = "" if t.guard == ir.TRUE else f" if {ir.pred_text(t.guard)}"
    lines.append(f"  terminal   {_match_text(system, t.match)}{guard}")
    if system.attach_headless_to_root:
        lines.append("  finally    attach headless to root")
    home = system.source_file
    for o in system.oracles:
        lines.append(f"  oracle     {o.name}: {o.title}   [{_where(o.origin, home)}]")
        if o.reach is not None:
            positive, h, d, pred = o.reach
            lines.append(f"    {'reachable' if positive else 'unreachable'} {h} -> {d} if {ir.pred_text(pred)}")
        for l in o.losses:
            lines.append(f"    loss {l.name} = {' + '.join(l.terms)}" + (f"  ({l.bound} bound)" if l.bound != "exact"
                                                                           else "  (exact)"))
        for name, pred in o.penalties:
            lines.append(f"    penalty {name} if {ir.pred_text(pred)}")
    actions = system.actions_for(n or 6) if system.unbounded else system.actions
    note = f" (capacity inf: instantiated for {n or 6} tokens)" if system.unbounded else ""
    lines.append(f"actions: {len(actions)}{note}")
    for a in actions:
        cls = f"  class {a.cls}" if a.cls != a.name else ""
        lines.append(f"  {a.name}{cls}   [{_where(a.origin, home)}]")
        for k, c in enumerate(a.cases):
            prefix = "    " if len(a.cases) == 1 else f"    case {k + 1}: "
            lines.append(f"{prefix}{_match_text(system, c.match)} => {_result_text(system, c.result)}")
            if c.guard != ir.TRUE:
                lines.append(f"      if        {ir.pred_text(c.guard)}")
            if c.implicit != ir.TRUE:
                lines.append(f"      implicit  {ir.pred_text(c.implicit)}")
            for op in c.arcs:
                lines.append(f"      arc       {_arc_text(op)}")
            for s in c.sets:
                lines.append(f"      then      {_set_text(s)}")
    return "\n".join(lines)


def _items_json(items) -> list:
    out = []
    for it in items:
        if isinstance(it, ir.Tok):
            out.append({"token": it.var})
        elif isinstance(it, ir.Rest):
            out.append({"rest": it.list})
        else:
            out.append({"block": it.var, "length": it.length})
    return out


def to_json_dict(system: ir.System, n: Optional[int] = None) -> dict:
    """The lowered system as JSON-ready data, in the layout docs/cli.md documents (version
    :data:`JSON_FORMAT`); every file is named by :func:`stable_path`, so the same spec gives
    the same JSON from any directory."""
    actions = system.actions_for(n or 6) if system.unbounded else system.actions
    home = system.source_file

    def loc(span) -> str:
        return _loc(span, home)

    return {
        "format": JSON_FORMAT,
        "name": system.name, "title": system.title, "cite": system.cite, "claim": system.claim, "style": system.style,
        "produces": system.produces, "covers": system.covers, "root": system.root,
        "lists": [{"name": d.name, "open_end": "right" if d.open_end == "R" else "left"} for d in system.lists],
        "params": dict(system.params), "settings": dict(system.settings),
        "token_flags": dict(system.token_flags), "global_flags": dict(system.global_flags),
        "multihead": system.multihead,
        "initial": {"lists": [list(i) for i in system.initial.lists], "split": system.initial.split},
        "terminal": {"match": {m.list: _items_json(m.items) for m in system.terminal.match},
                     "guard": ir.pred_json(system.terminal.guard)},
        "finally": ["attach headless to root"] if system.attach_headless_to_root else [],
        "oracles": [
            {"name": o.name, "title": o.title, "origin": loc(o.origin),
             "reach": None if o.reach is None else {"positive": o.reach[0], "head": o.reach[1], "dep": o.reach[2],
                                                    "if": ir.pred_json(o.reach[3])},
             "losses": [{"name": l.name, "terms": list(l.terms), "bound": l.bound} for l in o.losses],
             "penalties": [{"action": a, "if": ir.pred_json(p)} for a, p in o.penalties]}
            for o in system.oracles
        ],
        "unbounded": system.unbounded, "instantiated_for_tokens": (n or 6) if system.unbounded else None,
        "source": {"file": stable_path(home, home), "sha256": system.source_hash,
                   "chain": [stable_path(f, home) for f in system.sources]},
        "actions": [
            {
                "name": a.name, "class": a.cls, "family": a.family, "indexes": list(a.indexes),
                "labeled": a.labeled, "origin": loc(a.origin),
                "cases": [
                    {
                        "match": {m.list: _items_json(m.items) for m in c.match},
                        "guard": ir.pred_json(c.guard), "implicit": ir.pred_json(c.implicit),
                        "arcs": [{"head": o.head, "dep": o.dep, "labeled": o.labeled, "overwrite": o.overwrite,
                                  "break_cycle": o.break_cycle} for o in c.arcs],
                        "result": {system.lists[k].name: _items_json(items) for k, items in enumerate(c.result)},
                        "sets": [{"flag": s.flag, "token": s.var, "value": ir.pred_json(s.value)} for s in c.sets],
                        "origin": loc(c.origin),
                    }
                    for c in a.cases
                ],
            }
            for a in actions
        ],
    }


def render_json(system: ir.System, n: Optional[int] = None) -> str:
    return json.dumps(to_json_dict(system, n), indent=2, ensure_ascii=False)


def _num(v) -> str:
    return "inf" if v is None else str(v)
