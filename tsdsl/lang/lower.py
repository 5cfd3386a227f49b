"""Lowering a merged spec to the IR: parameters, system-wide settings, then the
transitions (control parameters or rewrite rules) and the oracle blocks."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Optional

from .. import ir
from . import codes
from .context import Context
from .control import lower_control
from .oracles import lower_oracles
from .rules import lower_rules
from .style import in_style, report_off_style

ROOT_POSITIONS = ("left", "right", "none")
TREE_CLASS_ALIASES = {"projective": "projective", "nonprojective": "nonprojective", "non-projective": "nonprojective",
                      "trees": "nonprojective", "dag": "dag", "projective-dag": "projective-dag", "any": "any"}


def lower_system(ctx: Context) -> Optional[ir.System]:
    """The IR system of a merged spec; every problem goes to ``ctx.sink`` (the system may
    be incomplete or ``None`` when there are errors)."""
    m = ctx.m
    ctx.read_params()
    root = _root(ctx)
    produces, covers = _produces(ctx)
    multihead = "multihead" in m.singles
    report_off_style(ctx, ctx.style)
    cp, rules = in_style(m, "cp"), in_style(m, "rewrite")
    if not m.transitions and not any(d.code == codes.EXTENDS for d in ctx.sink.items):
        # (a parent spec that could not be read is the error: its transitions are missing)
        ctx.err(codes.NO_TRANSITIONS, "the system has no transitions", m.header_span)
    for f in m.flags.values():
        if f.index is not None and f.index != "token":
            ctx.err(codes.FLAG, f"a per-token flag is declared as {f.name}[token], not [{f.index}]", f.span)
    attach = _finally(ctx)
    common = dict(
        name=m.name, title=m.title or m.name, cite=m.singles["cite"].text if "cite" in m.singles else "",
        claim=m.singles["claim"].text if "claim" in m.singles else "",
        produces=produces, covers=covers, root=root,
        token_flags=tuple((n, f.default) for n, f in ctx.token_flags.items()),
        global_flags=tuple((n, f.default) for n, f in ctx.global_flags.items()),
        multihead=multihead, attach_headless_to_root=attach,
        source_file=m.files[-1], sources=tuple(m.files),
        source_hash=hashlib.sha256(
            ("\0".join(m.texts) + repr(sorted(ctx.overrides.items()))).encode("utf-8")
        ).hexdigest(),
    )
    if ctx.style == "cp":
        system = lower_control(ctx, cp, common, multihead, root)
    else:
        system = lower_rules(ctx, rules, common, multihead, root)
    if system is not None and m.oracles:
        system = dataclasses.replace(system, oracles=lower_oracles(ctx, system, root))
    return system


def _root(ctx: Context) -> str:
    st = ctx.m.singles.get("root")
    if st is None:
        return "none"
    if st.position not in ROOT_POSITIONS:
        ctx.err(codes.BAD_SETTING, f"root must be left, right or none, not {st.position!r}", st.span)
        return "none"
    return st.position


def _produces(ctx: Context) -> tuple[str, str]:
    st = ctx.m.singles.get("produces")
    if st is None:
        return "any", "any"
    out = []
    for value in (st.tree_class,) if st.covers is None else (st.tree_class, st.covers):
        if value not in TREE_CLASS_ALIASES:
            ctx.err(codes.BAD_SETTING, f"unknown tree class {value!r}; use one of: "
                    f"{', '.join(sorted(TREE_CLASS_ALIASES))}", st.span)
            out.append("any")
        else:
            out.append(TREE_CLASS_ALIASES[value])
    return out[0], out[-1]


def _finally(ctx: Context) -> bool:
    st = ctx.m.singles.get("finally")
    if st is None:
        return False
    if " ".join(st.words) != "attach headless to root":
        ctx.err(codes.FINALLY, "the only `finally` rule is `finally attach headless to root`", st.span)
        return False
    return True
